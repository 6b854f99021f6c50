// Types of the interface language (re-exported by ffn-lab/sandbox and ffn-lab/components): the locale tables.

/**
 * One string of a table: a template ('{name}' is a parameter), plural forms chosen by the parameter n
 * (Intl.PluralRules), or a function of the parameters and the locale.
 */
export type StringTemplate =
  | string
  | { zero?: string; one?: string; two?: string; few?: string; many?: string; other: string }
  | ((params: Record<string, unknown>, locale: string) => string);

export type StringsNode = StringTemplate | { [key: string]: StringsNode };

/**
 * A locale table, or part of one: namespaces of keys (web/i18n/en.js lists every key with its English text).
 * exercise, progress and storage: <ffn-exercise> and its saved progress; memory, plot, calculator: the widgets;
 * errors: refused attributes; numbers: Infinity.
 */
export interface StringsTable {
  numbers?: { [key: string]: StringsNode };
  exercise?: { [key: string]: StringsNode };
  progress?: { [key: string]: StringsNode };
  storage?: { [key: string]: StringsNode };
  memory?: { [key: string]: StringsNode };
  plot?: { [key: string]: StringsNode };
  calculator?: { [key: string]: StringsNode };
  errors?: { [key: string]: StringsNode };
  [namespace: string]: { [key: string]: StringsNode } | undefined;
}

/**
 * Add a language, or override some strings of one (built-in: 'en', 'fr'), for every ffn-lab element on the page.
 * `table` is an object or its JSON text; a key it lacks keeps its built-in value (English for a language ffn-lab does
 * not ship). Elements already on the page re-render. Throws a TypeError for a bad tag or
 * table.
 */
export function defineStrings(lang: string, table: StringsTable | string): void;

/**
 * A copy of the table in use for a language (every key; English where the language has no string). A built-in
 * language other than English is loaded on first use: until loadStrings(lang) has resolved, English.
 */
export function getStrings(lang?: string): StringsTable;

/**
 * Load the built-in strings of a language ('fr': the interface and the built-in exercises' text), which a page in
 * English never downloads; resolves once they are in use (at once for English or a language without a table). The
 * elements load their language themselves before they fire ffn-ready.
 */
export function loadStrings(lang: string): Promise<void>;
