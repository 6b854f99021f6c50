// ffn-lab/lms: exercise results where courses keep them: a SCO's link to its LMS (SCORM 1.2 and 2004), the embed
// pages' result message, and xAPI statements (web/lms/README.md). The package builder is the command, web/lms/cli.js.
export { connectScorm, SCORM_STORAGE_PREFIX } from './connect.js';
export { findScormApi, scormSession, API_WALK_LIMIT } from './scorm-api.js';
export { encodeSuspend, decodeSuspend, SUSPEND_LIMITS } from './suspend.js';
export { resultMessage, RESULT_MESSAGE, RESULT_EVENT } from './result-message.js';
export {
  xapiStatement,
  verbOf,
  cmi5Launch,
  cmi5Auth,
  createLrsSender,
  connectXapi,
  XAPI_VERBS,
  DIAGNOSES_EXTENSION,
} from './xapi.js';
