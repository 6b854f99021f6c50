// English: every string the four elements show (the reference table: it has every key).
// '{name}' is a parameter; { one, other } is chosen by the count n. Another language needs only the keys it changes.
import { TOOLKIT_TEMPLATES, WORKER_TEMPLATES } from '../sandbox/run/toolkit.js';

export default {
  numbers: {
    infinity: 'Infinity',
    minusInfinity: '-Infinity',
    ordinal: { one: '{n}st', two: '{n}nd', few: '{n}rd', other: '{n}th' },
  },

  /*
   * What a grading report says (web/sandbox/grade.js, compare.js, diagnose.js): verdicts, what is wrong with an
   * output, and the diagnoses that are not an exercise's own. The report holds the English; <ffn-exercise> shows
   * the same messages in its language.
   */
  report: {
    allPassed: 'All {n} tests passed.',
    somePassed: '{k} of {n} tests passed.',
    setupThrew: 'Your code threw while it was being set up: {message}{where}',
    syntaxError: 'Your code has a syntax error: {message}{where}',
    couldNotRun: 'Your code could not run: {message}{where}',
    atLine: ' (line {line})',
    atLineColumn: ' (line {line}, column {column})',
    timeout:
      'Your code ran for more than {ms} ms and was stopped. This usually means an infinite loop (a while ' +
      'whose condition never changes, a for loop whose counter never moves), recursion without a base case, or a ' +
      'loop over far more elements than the inputs hold.',
    timeoutOn:
      'Your code ran for more than {ms} ms on the test "{name}" and was stopped. This usually means an ' +
      'infinite loop (a while whose condition never changes, a for loop whose counter never moves), recursion ' +
      'without a base case, or a loop over far more elements than the inputs hold.',
    aborted: 'The run was stopped.',
    setup: 'Setup problem (not your code): {message}',
    crashed: 'The sandbox stopped unexpectedly ({why}). If your code allocates very large arrays, make them smaller.',
    crash: {
      died: 'its process ended, most likely because your code used too much memory',
      removed: 'the sandbox frame was removed from the page',
      noStart: 'the exercise worker did not start',
      loadFailed: 'the exercise worker failed to load',
      failed: 'the exercise worker failed',
    },
    tooLong: 'Your code is {n} characters long; the limit is {max}.',
    // a result the page refused (runner.js): the report's test reads "Refused: the result could not be read: ..."
    refusedName: 'Refused',
    refused: {
      malformed: 'malformed result',
      unread: 'the result could not be read: {why}',
      malformedValue: 'it is malformed',
      numbers: 'it holds more than {max} numbers',
      deep: 'it is nested deeper than {max} levels',
      parts: 'it has too many parts',
      shared: 'it holds numbers in shared memory',
      buffer: 'it has a typed array of {n} numbers with a buffer of {bytes} bytes',
      array: 'it has an array of {n} items, more than {max}',
      keys: 'it has an object of {n} keys, more than {max}',
      longKey: 'it has a key longer than {max} characters',
    },
    // errors the toolkit throws in the worker: their English is web/sandbox/toolkit.js's TOOLKIT_TEMPLATES (the
    // worker cannot read this table), keys notNumberInside, ragged, sizeMismatch, notTensor, reshape, ...
    toolkit: TOOLKIT_TEMPLATES,
    // what the worker itself says (its English is web/sandbox/toolkit.js's WORKER_TEMPLATES, as for the toolkit):
    // a result it refuses, a value that is no result (bad), its refusals of the learner's code, the stubs' errors
    worker: WORKER_TEMPLATES,
    // a long shape or key list, cut (report-bounds.js fmtShape, listKeys)
    sizesCut: '[{shown},… ({n} sizes)]',
    keysCut: '{shown}, … ({n} keys)',
    /*
     * Why the site's setup keeps the browser sandbox from starting (frame-host.js). The element shows {url},
     * {file}, {meta}, {directive}, {detail} and {why} as code.
     */
    site: {
      fixFile: 'Fix: serve a copy of {file} with your site, unchanged, and name its URL in the page: {meta}.',
      notThere: '{url} answered HTTP {status}: the file is not there',
      notFrame:
        "{url} is not ffn-lab's sandbox frame (the server answered with another page, such as the site's " + 'index)',
      didNotStart: 'the sandbox frame did not start: {problem}. {fix}',
      slow: 'the sandbox frame {url} did not start within {s} s. {fix}',
      cspFrame:
        "this page's Content-Security-Policy ({directive}) refuses to load the sandbox frame {url}. Fix: " +
        'allow its origin in frame-src, e.g. {example} when ffn-lab is served by your site.',
      inlineNamed:
        'the inline sandbox frame ({meta}) cannot run here: {problem}. Fix: remove that <meta>, or allow ' +
        "the inline frame (see ffn-lab's README, Content Security Policy).",
      cannotRun: 'the sandbox frame {url} cannot run exercises: {problem}',
      scriptRefused:
        'its script was refused: a Content-Security-Policy other than the one in its <meta> applies to ' +
        "it (your site's header?). Fix: serve this file without your site's policy, or host a copy on another " +
        'origin and name it in {meta}.',
      cspNeeds: 'the Content-Security-Policy refuses what learner code needs: {detail}',
      inlineNoAnswer: 'the inline sandbox frame did not answer',
      inlineScript: "the page's Content-Security-Policy refused the inline frame's script",
      sources: 'the sandbox frame {url} refused its sources: {detail}',
      chunk:
        "could not load ffn-lab's sandbox-inline.js ({detail}). Fix: serve every file your bundler emitted, or " +
        '{dir} whole.',
      noUrl:
        '{refused}without import.meta.url ffn-lab cannot find its own frame.html. Bundle ffn-lab as an ES ' +
        'module, or: {fix}',
      noInline: 'this page refuses the inline sandbox frame ({why}), and ',
      viaFile:
        "this page's Content-Security-Policy refuses the inline sandbox frame ({why}), so ffn-lab used its " +
        'frame file, and {problem}',
    },
    // one test's line
    stoppedAfter: 'stopped after {ms} ms',
    threw: '{name}: {message}{where}',
    missingFn: '{fn} is not defined: write function {fn}(...) { ... }',
    mismatch: 'first mismatch: got {got}, expected {expected} (max error {error})',
    mismatchAt: 'first mismatch at {at}: got {got}, expected {expected} (max error {error})',
    integerMismatch: 'got {got}, expected {expected}{off}',
    short: ' ({n} short)',
    over: ' ({n} over)',
    indexMismatch: '{at} {order}: got {item}{got}, expected {item}{expected} ({where})',
    entry: 'entry',
    belongs: '{item}{v} belongs {at}',
    notThere: '{item}{v} should not be there',
    keyed: '{key}: {problem}',
    // what is wrong with a returned value
    returnedNothing: 'returned nothing',
    unreadable: 'returned a value that could not be read',
    tooMany: 'returned {n} numbers, more than the {max} read',
    tooDeep: 'returned an array nested deeper than {max} levels',
    nestedBut: 'returned {what}, but {why}',
    nested: {
      hole: 'it has a hole or nothing where a value was expected',
      notNumber: 'found {what} where a number was expected',
      ragged: 'the nested array is ragged',
    },
    badData: 'returned a tensor whose data is {what}, not a flat list of numbers',
    badShape: 'returned a tensor whose shape is {what}, not a list of sizes',
    sizeMismatch: 'returned a tensor with shape {shape} ({n} numbers) but {m} numbers in data',
    notTensor: 'returned {what}; expected a tensor {data, shape} or a nested array',
    shape: 'returned shape {got}, expected {expected}',
    shapeFlat: 'returned shape {got}, expected {expected} (a flat array: wrap it as {data, shape})',
    notIndex: 'returned {v} at position {i}; expected integer indices',
    notInteger: 'returned {what}; expected a whole number',
    notNumber: 'returned {what}; expected a number',
    notObject: 'returned {what}; expected an object with keys {{keys}}',
    keyMissing: 'the key "{key}" is missing',
    keysHead: 'expected keys {expected}; got {got}',
    noKeys: 'no keys',
    keysRename: '{head}: rename {renames}',
    keysMissing: '{head}: {missing} missing',
    wire: {
      nothing: 'nothing',
      number: 'the number {v}',
      typed: 'a {type} of length {n}',
      typedArray: 'a typed array of length {n}',
      array: 'an array of length {n}',
      object: 'an object with keys {{keys}}',
      malformed: 'a malformed object',
      unreadable: 'an unreadable value',
      unknown: 'an unknown value',
    },
    // notes
    argument: 'argument {n}',
    impure:
      '{fn} changes its argument {name} in place: called again with the same {name} it gave a different ' +
      'result. The functions are meant to be pure: leave the inputs as they are and build new tensors for the ' +
      'results (map, add, zeros and the other toolkit functions return fresh ones).',
    // diagnoses that are not an exercise's own mistakes
    partial: '{message} (This explains {k} of the {n} failing tests of {fn}; the others fail for another reason.)',
    keys: {
      title: 'Result keys spelled differently',
      message:
        'Your {fn} returns an object whose keys are not the expected ones ({problem}). Keys must match ' +
        'exactly: JavaScript is case-sensitive, and this exercise writes them in camelCase.',
    },
    transposed: {
      title: 'Output transposed',
      plain: 'Your output',
      keyed: 'Your {key} output',
      message:
        '{your} holds the right numbers in transposed layout: shape {got} instead of {expected}. Check the ' +
        'order of the factors in your last matmul.',
    },
    scaled: {
      title: 'Off by a constant factor',
      plain: 'Your values',
      keyed: 'Your {key} values',
      negatives: 'the negatives of the expected values',
      times: '{c} times the expected values',
      message: '{your} are {what}. Look for a missing or extra constant factor (or sign).',
    },
    direction: 'No known mistake matches; where {fn} goes wrong',
    sentences: '{parts}',
    space: ' ',
    comma: ', ',
    andList: '{head} and {last}',
    blowup:
      'Your {fn} returns NaN or Infinity where the expected values are finite ({where}). A formula with exp ' +
      'or tanh overflows for large |z|: Math.exp(z) is Infinity beyond z ≈ 709, and Infinity / Infinity is NaN. ' +
      'Write it so that exp only sees arguments that cannot overflow, for example σ(z) = 1 / (1 + e^(−z)) rather ' +
      'than e^z / (1 + e^z), and tanh with Math.tanh.',
    theTest: 'the test "{name}"',
    nTests: { one: '{n} test', other: '{n} tests' },
    range: {
      nan: 'It is wrong only where {name} is NaN: NaN should pass through (let it propagate).',
      overflow: ': look for exp or tanh overflowing for large |z|',
      below: 'It is wrong only for inputs at or below {v} (every larger {name} is right){hint}.',
      above: 'It is wrong only for inputs at or above {v} (every smaller {name} is right){hint}.',
      magnitude: 'It is wrong only for inputs of magnitude {v} or more (every smaller {name} is right){hint}.',
    },
    failsOnly: 'It fails only when {text}.',
    failsOnlyDefault: 'It fails only when {text}: give {name} its default in the signature, {name} = {value}.',
    feature: {
      omitted: '{name} is left out',
      is: '{name} is {v}',
      equals: '{name} = {v}',
      rank: '{name} is {n}-D',
      row: '{name} has a single row',
      nan: '{name} holds NaN',
      zero: '{name} is all zeros',
      big: '{name} has entries of magnitude 100 or more',
      dim4: '{name} is not a multiple of 4',
    },
    fields: '{wrong} in every failing test; {right}.',
    fieldsWrong: { one: '{keys} is wrong', other: '{keys} are wrong' },
    fieldsRight: { one: '{keys} is right', other: '{keys} are right' },
  },

  /* <ffn-exercise> */
  exercise: {
    unknown: 'unknown exercise "{id}"; known: {known}',
    heading: '{number}. {title}',
    section: 'Exercise: {title}',
    examples: 'Examples',
    toolkit: 'In scope: {names}. Tensors are {tensor}. {log} output is shown below the results.',
    keys: 'Tab indents, Shift+Tab outdents, Escape then Tab leaves the editor, Ctrl+Enter (⌘+Enter) runs the tests.',
    keysRun: 'Ctrl+Enter (⌘+Enter) runs the tests.',
    editorLabel: 'Your code for {title}: {names}',
    editorRefused: 'editor was not changed: it must be an editor adapter (codeMirrorEditor(...)) or null.',
    run: 'Run tests',
    running: 'Running…',
    stop: 'Stop',
    hint: 'Hint ({i} of {n})',
    noMoreHints: 'No more hints',
    hints: 'Hints',
    showSolution: 'Show solution',
    hideSolution: 'Hide solution',
    compareSolution: 'Compare with the reference solution',
    reset: 'Reset',
    cancel: 'Cancel',
    solutionNote: 'Reference solution:',
    confirmSolution: 'Show the reference solution before you have passed? You can keep working afterwards.',
    confirmReset: 'Reset this exercise? Your code goes back to the starter and its saved progress is cleared.',
    badgePassed: 'Passed',
    badgeAttempted: 'Not passed',
    runningTests: 'Running the hidden tests…',
    goToLine: 'Go to line {line}',
    likelyMistake: 'Likely mistake: {title}',
    hiddenTests: 'Hidden tests',
    testPassed: '{name}: passed',
    testPassedError: '{name}: passed (max error {error})',
    testNotRun: '{name}: not run',
    testTimedOut: '{name}: timed out',
    testFailed: '{name}: failed',
    tolerance:
      'A value passes when |got − expected| ≤ {atol} + {rtol}·|expected|; counts and indices must match ' +
      "exactly. Expected values come from ffn-lab's wasm kernels.",
    wellDone: 'Well done. You can now compare with the reference solution.',
    partialVariant: '(This explains {k} of the {n} failing tests of {fn}; the others fail for another reason.)',
    consoleOutput: { one: 'console output ({n} line)', other: 'console output ({n} lines)' },
    // notices about what a page set on the element (part="notice")
    quoted: '{text} ({n} characters)',
    timeoutNaN: 'timeout={value} is not a number of milliseconds; using {ms}.',
    timeoutRange: 'timeout={value} is outside {min} to {max} ms; using {ms}.',
    storageKey:
      'storage-key={value} is not usable (at most {max} characters, no control characters); progress is ' +
      'kept for this visit only.',
    numberRefused: '{name}={value} is not shown: at most {max} characters, no control characters.',
    seedRefused: 'seed was not changed: it must be a whole number; got {got}.',
    propRefused: '{name} was not changed: it must be {kind}; got {got}.',
    kindString: 'a string',
    kindNumber: 'a number',
    valueKinds: { bigint: 'a BigInt', object: 'an object', symbol: 'a Symbol', function: 'a function' },
    codeRefused: 'code was not set: {why}.',
    // setup problems (for the site's author, never the learner's fault)
    setupProblem: 'Setup problem (not your code): {message}',
    kernelsFailed: 'ffn-lab could not load its kernels: {error} {fix}',
    fixConsole: "Fix: check the browser console, and that ffn-lab's files are served as installed.",
    fixCsp: "Fix: allow WebAssembly in the page's Content-Security-Policy: {directive}.",
    fixServe:
      "Fix: serve that file (it sits next to ffn-lab's {file}), or load the kernels from the default entry " +
      '{entry}, whose wasm is inlined.',
  },

  /* saved and imported progress (storage.js): why some of it could not be read, imported or kept */
  storage: {
    nested: 'it is nested deeper than {depth} levels',
    wide: 'it has an object or list of more than {n} entries at depth {depth}',
    codeType: 'code must be a string, not {type}',
    types: {
      number: 'number',
      object: 'object',
      boolean: 'boolean',
      undefined: 'undefined',
      null: 'null',
      bigint: 'bigint',
      symbol: 'symbol',
      function: 'function',
    },
    codeChars: { one: 'code is {n} character, more than {max}', other: 'code is {n} characters, more than {max}' },
    codeLines: 'code has more than {max} lines',
    status: 'status must be "passed" or "attempted"',
    passedAt: 'passedAt must be a date string of at most {max} characters',
    solutionShown: 'solutionShown must be true or false',
    hintsShown: 'hintsShown must be a whole number from 0 to {max}',
    notObject: 'it is not an object',
    savedTooLong: {
      one: 'the saved progress is {n} character long, more than the {max} this version reads',
      other: 'the saved progress is {n} characters long, more than the {max} this version reads',
    },
    savedShape: 'the saved progress is not ffn-lab progress ({why})',
    savedNotJson: 'the saved progress is not JSON',
    savedNotProgress: 'the saved progress is not ffn-lab progress',
    savedVersion: 'the saved progress is version {v}; this is version {current}',
    beyond: 'entries beyond the first {max} exercises',
    invalidId: 'an entry with the invalid id {id}',
    entry: '{id} ({problems})',
    partOf: 'part of {id} ({problems})',
    leftOut: 'some saved progress could not be read and was left out: {named}{more}',
    andMore: ', and {n} more',
    comma: ', ',
    wouldBe: {
      one: 'the progress would be {n} character long, more than {max}',
      other: 'the progress would be {n} characters long, more than {max}',
    },
    importType: 'importJSON: the progress must be JSON text (a string); got {type}',
    importTooLong: {
      one: 'importJSON: the text is {n} character long; progress is at most {max}',
      other: 'importJSON: the text is {n} characters long; progress is at most {max}',
    },
    importShape: 'importJSON: not an ffn-lab progress export ({why})',
    importNotJson: 'importJSON: the text is not JSON',
    importFormat: 'importJSON: not an ffn-lab progress export (format should be "{format}")',
    importVersion: 'importJSON: progress version {v} is not supported (this is version {current})',
    importExercises: 'importJSON: "exercises" must be an object mapping exercise ids to progress',
    importCount: {
      one: 'importJSON: the file has {n} exercise; at most {max}',
      other: 'importJSON: the file has {n} exercises; at most {max}',
    },
    badId: 'the id is not 1 to {max} letters, digits, _ or -',
    noProgress: 'it holds no progress',
    first: '{id}: {reason}',
    noEntry: 'importJSON: no entry could be imported ({first}); nothing was changed',
    cannotReplace: {
      one: 'importJSON: cannot replace all progress, {n} entry could not be imported ({first}); nothing was changed',
      other:
        'importJSON: cannot replace all progress, {n} entries could not be imported ({first}); nothing was ' +
        'changed',
    },
    replaceEmpty:
      'importJSON: the file holds no progress, and replacing with it would erase everything (use reset() ' +
      'for that); nothing was changed',
    wouldHold: 'importJSON: the progress would hold {total} exercises, more than {max}; nothing was changed',
    writeFailed: 'importJSON: {message}; nothing was changed',
  },

  /* the "Your progress" panel of <ffn-exercise> */
  progress: {
    title: 'Your progress',
    saved:
      'Your code and results are saved in this browser. To move them to another browser, export them here and ' +
      'import them there.',
    memoryOnly:
      'Storage is blocked on this page, so your progress lasts only for this visit. Export it here to keep ' + 'it.',
    json: 'Progress as JSON',
    export: 'Export all progress',
    import: 'Import',
    exported: 'Copy this text to keep it. Paste it here later and press Import to restore.',
    imported: { one: 'Imported progress for {n} exercise.', other: 'Imported progress for {n} exercises.' },
    skipped: { one: ' Skipped {n} (left as saved): {list}.', other: ' Skipped {n} (left as saved): {list}.' },
    afterReload: ' Other exercises on this page show it after a reload.',
    importFailed: 'Could not import: {message}',
    passedOn: 'You passed this exercise on {date}.',
    notAllLoaded: 'Your saved progress for this exercise was not all loaded: {problem}.',
    problem: '{problem}.',
  },

  /* <ffn-memory-widget> */
  memory: {
    loading: 'Loading the FFN kernels…',
    title: 'An FFN that stores facts: move the query and watch memories fire',
    defaultFacts: 'Tokyo>Japan, Paris>France, Rome>Italy',
    defaultDistractors: 'the, of, and',
    inPlane: 'Embedding plane: token positions, the query, and the region where each memory fires',
    outPlane: 'Output plane: the vector the FFN writes, and the output directions of the vocabulary',
    inCaption: 'Embedding space: drag the query (blue), or use the sliders',
    outCaption: 'What the FFN writes: full sum (solid), top-k partial sum (dashed)',
    sliderX: 'Query, first coordinate (x)',
    sliderY: 'Query, second coordinate (y)',
    sliderName: 'query {axis}',
    sliderText: '{axis} = {value}',
    tokens: 'Put the query on a token',
    queryToken: 'Query a token:',
    orFiller: 'or a filler word:',
    tableCaption:
      'Each memory: its match with the query, its activation, its state, and its rank in the top-k ' + 'partial sum',
    colMemory: 'memory (key → value)',
    colMatch: 'match x·k+b',
    colBar: 'activation',
    colPhi: 'φ = {act}',
    colState: 'state',
    colTop: 'top-k',
    cellMatch: 'match',
    cellPhi: 'φ',
    cellTop: 'top-k',
    fact: '{key} → {value}',
    keyLine: 'k = ({kx}, {ky}), b = {b}',
    state: { fires: 'fires', leaks: 'leaks', silent: 'silent' },
    rank: '#{n}',
    unranked: '–',
    topNote:
      'top-k ranks the strongest memories that add something to the sum; a silent memory adds nothing and ' +
      'gets no rank.',
    kLabel: 'top-k',
    kAria: 'top-k: number of strongest memories in the partial sum',
    tLabel: 'threshold',
    tAria: 'threshold: the bias subtracted from every match',
    actGroup: 'activation function',
    actPrefix: 'φ:',
    act: { relu: 'ReLU', gelu: 'GELU', silu: 'SiLU' },
    vec: '({x}, {y})',
    outFull: 'Query {near}{q} → FFN writes {w}, which decodes to ',
    near: '“{token}” ',
    nothing: 'nothing',
    score: ' (score {s})',
    bestScore: ' (best score {s})',
    outPart: 'Top-{k} partial sum {v} → {token}{score}',
    // the status line (read by screen readers too): always agrees with the vector written
    fires: "{key}'s memory fires ({c})",
    firesMore: "{key}'s memory fires ({c})",
    noneFires: 'No memory fires',
    writesToken: ' and writes {token} (score {s})',
    writesNoToken: ', but the write {w} decodes to no token',
    leaksWrite: {
      one: ', but {n} memory leaks through {act} and writes {w}',
      other: ', but {n} memories leak through {act} and write {w}',
    },
    leaksDecode: ', which decodes to {token} (score {s})',
    leaksTooWeak: ', too weak to decode to a token',
    leaksCancel: {
      one: '; {n} memory leaks through {act}, but they cancel out, so nothing is written',
      other: '; {n} memories leak through {act}, but they cancel out, so nothing is written',
    },
    nothingWritten: '; nothing is written',
    alsoLeak: { one: '; {n} memory leaks through {act}', other: '; {n} memories leak through {act}' },
    end: '.',
    listSep: ', ',
  },

  /* <ffn-activation-plot> */
  plot: {
    loading: 'Loading the activation kernels…',
    title: 'Activations, their slopes, and how far the GELU shortcuts stray',
    legend: 'Show or hide curves',
    curves: {
      relu: 'ReLU',
      relu2: 'squared ReLU',
      gelu: 'GELU (exact)',
      gelu_tanh: 'GELU (tanh)',
      gelu_sigmoid: 'GELU (sigmoid)',
      silu: 'SiLU',
    },
    slider: 'Readout position x (arrow keys move it)',
    hint: 'Hover, touch, or focus the plot and use the arrow keys (Shift for bigger steps) to read values.',
    tableCaption: 'Values at the readout position',
    colActivation: 'activation',
    colValue: 'φ(x)',
    colSlope: 'φ′(x)',
    plot:
      'Three panels: activation values, their derivatives, and the absolute error of the two GELU ' +
      'approximations on a log scale',
    panels: { values: 'φ(x)', slopes: 'φ′(x), the slope', errors: '|approx − exact GELU|, log scale' },
    names: { gelu: 'GELU', silu: 'SiLU', tanh: 'tanh', sigmoid: 'sigmoid' },
    minimum: '{name} min {y} at {x}',
    minimumLine1: '{name} min {y}',
    minimumLine2: 'at x = {x}',
    peak: '{name} max {err}',
    peakLine1: '{name} max',
    peaks: 'Largest GELU errors on [−6, 6]: tanh form {tErr} at x = {tX}, sigmoid form {sErr} at x = {sX}.',
    readX: 'At x = {x}',
    errHere: 'GELU error here: tanh form {t}, sigmoid form {s}.',
    valueText: 'x = {x}, GELU {g}, SiLU {s}',
    announce: 'x {x}: GELU {g}, SiLU {s}, ReLU {r}',
    logTick: '1e{v}',
  },

  /* <ffn-param-calculator> */
  calculator: {
    loading: 'Loading the counting kernels…',
    title: 'Where the parameters live: one block, counted',
    presets: 'Presets',
    presetsLead: 'Presets:',
    presetLabels: {
      transformer: 'Original Transformer (base)',
      gpt2: 'GPT-2 small',
      llama7b: 'LLaMA-7B',
      llama3_8b: 'LLaMA-3 8B (GQA)',
      llama2_70b: 'LLaMA-2 70B (GQA)',
      qwen3_moe: 'Qwen3-30B-A3B (MoE)',
    },
    form: 'Block configuration',
    d: 'd (model width)',
    rule: 'hidden width',
    ruleExplicit: 'set d_ff directly',
    ruleLlama: 'LLaMA rule (8d/3, rounded)',
    dff: 'd_ff (per expert with MoE)',
    multipleOf: 'multiple_of',
    multiplier: 'ffn_dim_multiplier (blank = none)',
    gated: 'gated (SwiGLU: 3 matrices)',
    bias: 'biases',
    heads: 'attention heads H',
    kvHeads: 'KV heads H_kv',
    headDim: 'head dim (blank = d/H)',
    moe: 'mixture of experts',
    experts: 'experts',
    active: 'active experts per token',
    shared: 'shared experts',
    card: {
      dff: 'hidden width d_ff',
      ffnParams: 'FFN parameters per layer',
      attnParams: 'attention projection parameters',
      share: 'FFN share of the block',
      ffnFlops: 'FFN forward FLOPs per token',
      attnFlops: 'attention projection FLOPs per token',
      moeTotal: 'MoE: total FFN parameters',
      moeActive: 'MoE: active FFN parameters per token',
      moeFlops: 'MoE: active FFN FLOPs per token',
    },
    expertParams: 'parameters of one expert FFN',
    activeFlops: 'active FFN forward FLOPs per token',
    billion: '{x} billion',
    million: '{x} million',
    ratio: '{r} × d',
    ratioGated: '{r} × d, gated',
    percent: '{p}%',
    gqa: ' (GQA: {kv} KV heads for {h})',
    shareActive: 'active only: {p}%',
    shareDef: 'FFN / (FFN + attention projections)',
    perWeight: '2 per weight',
    activePlusRouter: 'active experts plus router',
    scores: 'plus 4·T·d for the scores over T tokens',
    moeTotalNote: '{big}: {e} experts + router',
    moeTotalNoteShared: '{big}: {e} + {s} shared experts + router',
    moeActiveNote: '{a} experts + router, {pct}% of the total',
    moeActiveNoteShared: '{a} + {s} experts + router, {pct}% of the total',
    moeFlopsNote: 'vs {dense} if every expert ran',
    key: 'FFN ',
    keyAttn: 'attention projections (norms, embeddings and the attention scores over the context are not counted)',
    announce: 'd_ff {dff}; FFN {params} parameters, {pct}% of the block',
  },

  /*
   * What the widgets show when an attribute (or property) is refused: one line per attribute, after the element's
   * tag. The same texts are the messages of the errors the models throw (in English).
   */
  errors: {
    load: 'could not load the kernels: {message}',
    mustBeString: '{name} must be a string, got {type}',
    tooLong: '{name} is {n} characters long; at most {max} are accepted',
    mustBeNumber: '{name} must be a number, got {got}',
    numberTooLarge: '{name} is too large: {got}',
    numberRange: '{name} must be between {min} and {max}, got {got}',
    mustBeFinite: '{name} must be a finite number, got {got}',
    wholeNumber: '{name} must be a whole number, got {got}',
    unknownAttribute: 'unknown attribute {name}',
    // memory widget
    factKey: "parseFacts: fact {i}'s key",
    factValue: "parseFacts: fact {i}'s value",
    factThreshold: "parseFacts: fact {i}'s threshold",
    factsAttr: 'parseFacts: facts',
    distractorsAttr: 'parseDistractors: distractors',
    distractorToken: 'parseDistractors: token {i}',
    labelTooLong: '{name} is {n} characters long; at most {max}',
    labelEmpty: '{name} is empty',
    labelChars: '{name} {label} has {n} characters; at most {max}',
    labelBad: '{name} {label} may not contain ">", "@", ",", ";" or control characters',
    labelBadWord: '{name} {label} may not contain spaces, ">", "@", ",", ";" or control characters',
    factCount: 'parseFacts: expected 1 to {max} facts, got {n}',
    factObject: 'parseFacts: fact {i} must be an object { key, value, threshold? }',
    factSyntax: 'parseFacts: fact {i} {fact} should look like "Tokyo>Japan" or "Tokyo>Japan@1.5"',
    factsType: 'parseFacts: facts must be a string like "Tokyo>Japan, Paris>France" or an array of { key, value }',
    factTwice: 'parseFacts: key token {key} appears twice',
    factThresholdNumber: 'parseFacts: fact {i} threshold must be a number, got {got}',
    distractorCount: 'parseDistractors: at most {max} distractor tokens, got {n}',
    queryShape: '{name} must be "x,y", got {got}',
    queryNumbers: '{name} must be "x,y" with two finite numbers, got {got}',
    activation: '{name} must be one of {list}, got {got}',
    hashKey: 'sync-hash must be a name of letters, digits, - and _ (at most 32), got {got}',
    hashPart: '{part} (expected q:x,y, k:n, t:threshold or a:activation)',
    hashIgnored: 'sync-hash: ignored {parts}',
    hashTooLong: 'sync-hash: the URL hash is {n} characters long; at most {max} are read',
    hashName: 'sync-hash {name}',
    hashValue: 'sync-hash value',
    noToken: 'token: no token named {name}',
    // activation plot
    range: 'range must be "lo,hi" with lo < hi, both within [-{limit}, {limit}] and at least {span} apart, got {got}',
    curves: 'curves: unknown curve {id}; expected some of {list}',
    // parameter calculator
    computeBlock: 'computeBlock: {inner}',
    posInt: '{name} must be a positive integer up to {max}, got {got}',
    nonNegInt: '{name} must be a non-negative integer up to {max}, got {got}',
    configObject: 'the configuration must be an object',
    headsMultiple: 'heads ({heads}) must be a multiple of kvHeads ({kv})',
    headsDivide: 'd ({d}) is not divisible by heads ({heads}); give headDim',
    dffMode: 'dffMode must be "explicit" or "llama", got {got}',
    multiplier: 'multiplier must be null or a number in {range}, got {got}',
    moeObject: 'moe must be null or { experts, active, shared }',
    activeExceed: 'active experts ({active}) exceed experts ({experts})',
    presetsJson: 'presets must be JSON: an array of { id, label, d, dff, heads, kvHeads, ... } ({why})',
    presetsArray: 'presets must be an array of { id, label, d, dff, heads, kvHeads, ... }',
    presetsCount: 'presets: at most {max} presets, got {n}',
    presetObject: 'presets: preset {i} must be an object { id, label, ... }',
    presetFields: 'presets: preset {i} has {n} fields',
    presetUnknownField: 'presets: preset {i} has unknown field {field}; fields are {fields}',
    presetId: 'presets: preset {i} needs an id of letters, digits, - and _ (at most 32), got {got}',
    presetBuiltIn: "presets: preset {i}'s id {id} is a built-in preset",
    presetTwice: 'presets: id {id} appears twice',
    presetLabel: 'presets: preset {id} needs a label of 1 to 80 characters',
    presetConfig: 'presets: preset {id}: {inner}',
    bool: '{name} must be "true" or "false" (or present without a value), got {got}',
    presetIdSyntax: 'unknown preset {got}; ids are letters, digits, - and _',
    rule: 'rule must be "llama" or "explicit", got {got}',
    unknownPreset: 'unknown preset {id}; expected one of {known}',
    quoteCut: '{text}… ({n} characters)',
    listSep: '; ',
  },

  // The embed pages' lines about their URL query (web/embed/params.js), shown above the element.
  embed: {
    queryTooLong: "The URL's query is {n} characters long; at most {max} are read: its parameters were ignored.",
    theme: 'theme={value} is not "dark" or "light"; it was ignored.',
    id: 'id={value} is not 1 to {max} letters, digits, "_", ".", ":" or "-"; the height messages carry no id.',
    lang: 'lang={value} is not a language tag such as "fr" or "pt-BR"; it was ignored.',
  },
};
