// What web/lms says to a learner, by key, in the page's language (English and French; English for any other).

const TABLES = {
  en: {
    lmsProblem:
      'Your course platform did not accept your results ({detail}). Your work is kept in this browser: keep going, ' +
      'and ask your teacher if your grade does not appear.',
  },
  fr: {
    lmsProblem:
      "La plateforme du cours n'a pas accepté vos résultats ({detail}). Votre travail est conservé dans ce " +
      "navigateur : continuez, et prévenez votre enseignant si votre note n'apparaît pas.",
  },
};

/** The message `key` in language `lang` (a tag such as "fr-CA"), its {name} parameters filled from `params`. */
export function lmsMessage(key, params = {}, lang = 'en') {
  const table = TABLES[String(lang).toLowerCase().split('-')[0]] || TABLES.en;
  return (table[key] ?? TABLES.en[key]).replace(/\{(\w+)\}/g, (m, name) => String(params[name] ?? m));
}
