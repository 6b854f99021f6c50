// imsmanifest.xml for a package of one SCO: SCORM 1.2 (IMS CP 1.1.2, ADL CP 1.2) or SCORM 2004 4th edition.

const NS = {
  1.2: {
    attrs:
      'xmlns="http://www.imsproject.org/xsd/imscp_rootv1p1p2" ' +
      'xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_rootv1p2" ' +
      'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"',
    schemaversion: '1.2',
    scormType: 'adlcp:scormtype',
  },
  2004: {
    attrs:
      'xmlns="http://www.imsglobal.org/xsd/imscp_v1p1" ' +
      'xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_v1p3" ' +
      'xmlns:adlseq="http://www.adlnet.org/xsd/adlseq_v1p3" ' +
      'xmlns:adlnav="http://www.adlnet.org/xsd/adlnav_v1p3" ' +
      'xmlns:imsss="http://www.imsglobal.org/xsd/imsss" ' +
      'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"',
    schemaversion: '2004 4th Edition',
    scormType: 'adlcp:scormType',
  },
};

/** Text for an XML attribute or element. */
export const xmlText = (s) =>
  String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c]);

/** A file path as a manifest href: each segment percent-encoded where a URI needs it. */
const href = (path) => path.split('/').map(encodeURIComponent).join('/');

/**
 * The manifest of one SCO: { version: '1.2' | '2004', identifier (letters, digits, '-', '.', '_'), title, launch (the
 * SCO page's path), files (every path in the package but the manifest, the launch page included) }.
 */
export function scormManifest({ version, identifier, title, launch, files }) {
  const ns = NS[version];
  if (!ns) throw new RangeError(`scormManifest: version must be '1.2' or '2004'; got ${String(version)}`);
  const t = xmlText(title);
  const list = files.map((f) => `      <file href="${xmlText(href(f))}"/>`).join('\n');
  return `<?xml version="1.0" encoding="UTF-8"?>
<manifest identifier="${xmlText(identifier)}" version="1" ${ns.attrs}>
  <metadata>
    <schema>ADL SCORM</schema>
    <schemaversion>${ns.schemaversion}</schemaversion>
  </metadata>
  <organizations default="org-1">
    <organization identifier="org-1">
      <title>${t}</title>
      <item identifier="item-1" identifierref="sco-1" isvisible="true">
        <title>${t}</title>
      </item>
    </organization>
  </organizations>
  <resources>
    <resource identifier="sco-1" type="webcontent" ${ns.scormType}="sco" href="${xmlText(href(launch))}">
${list}
    </resource>
  </resources>
</manifest>
`;
}
