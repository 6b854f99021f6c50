// Français : tout le texte des quatre éléments et le cadre des rapports de correction (mêmes clés que en.js).
// Written with plain spaces before « : ; ? ! » and inside guillemets; typo() below makes them non-breaking.

const table = {
  numbers: {
    infinity: '+∞',
    minusInfinity: '−∞',
    ordinal: { one: '{n}er', other: '{n}e' },
  },

  report: {
    allPassed: 'Les {n} tests sont réussis.',
    somePassed: '{k} tests réussis sur {n}.',
    setupThrew: 'Votre code a levé une erreur pendant sa mise en place : {message}{where}',
    syntaxError: 'Votre code contient une erreur de syntaxe : {message}{where}',
    couldNotRun: 'Votre code n’a pas pu s’exécuter : {message}{where}',
    atLine: ' (ligne {line})',
    atLineColumn: ' (ligne {line}, colonne {column})',
    timeout:
      'Votre code a tourné plus de {ms} ms et a été arrêté. C’est en général une boucle infinie (une boucle ' +
      'dont la condition ne change jamais, un compteur qui n’avance pas), une récursion sans cas de base, ou une ' +
      'boucle sur bien plus d’éléments que les entrées n’en contiennent.',
    timeoutOn:
      'Votre code a tourné plus de {ms} ms sur le test « {name} » et a été arrêté. C’est en général une ' +
      'boucle infinie (une boucle dont la condition ne change jamais, un compteur qui n’avance pas), une récursion ' +
      'sans cas de base, ou une boucle sur bien plus d’éléments que les entrées n’en contiennent.',
    aborted: 'L’exécution a été interrompue.',
    setup: 'Problème d’installation (votre code n’y est pour rien) : {message}',
    crashed:
      'Le bac à sable s’est arrêté brutalement ({why}). Si votre code alloue de très grands tableaux, ' +
      'réduisez-les.',
    crash: {
      died: 'son processus s’est terminé, très probablement parce que votre code a utilisé trop de mémoire',
      removed: 'le cadre du bac à sable a été retiré de la page',
      noStart: 'le worker de l’exercice n’a pas démarré',
      loadFailed: 'le worker de l’exercice n’a pas pu être chargé',
      failed: 'le worker de l’exercice a échoué',
    },
    tooLong: 'Votre code compte {n} caractères ; la limite est de {max}.',
    refusedName: 'Refusé',
    // a text that has no key (learner code's own error message, the engine's): shown as it is
    raw: '{text}',
    refused: {
      malformed: 'résultat mal formé',
      unread: 'le résultat n’a pas pu être lu : {why}',
      malformedValue: 'il est mal formé',
      numbers: 'il contient plus de {max} nombres',
      runNumbers: 'avec lui, les résultats de l’exécution contiendraient plus de {max} nombres en tout',
      deep: 'il est imbriqué sur plus de {max} niveaux',
      parts: 'il a trop de parties',
      shared: 'il contient des nombres en mémoire partagée',
      buffer: 'il a un tableau typé de {n} nombres sur un tampon de {bytes} octets',
      array: 'il a un tableau de {n} éléments, plus de {max}',
      keys: 'il a un objet de {n} clés, plus de {max}',
      longKey: 'il a une clé de plus de {max} caractères',
    },
    toolkit: {
      notNumberInside: '{fn} : un nombre était attendu dans le tableau, reçu : {type}',
      ragged: '{fn} : le tableau imbriqué est irrégulier (longueur {n} attendue à la profondeur {depth})',
      sizeMismatch: '{fn} : la forme {shape} contient {n} nombres mais data en a {m}',
      notTensor:
        '{fn} : un tenseur {data, shape}, un tableau imbriqué de nombres ou un nombre était attendu ; ' +
        'reçu : {type}',
      reshape: 'reshape : impossible de voir la forme {shape} ({n} nombres) comme {to}',
      mapFunction: 'map : le deuxième argument doit être une fonction (valeur, indice) => nombre',
      zipFunction: 'zip : le troisième argument doit être une fonction (a, b, indice) => nombre',
      zipShapes: 'zip : les formes diffèrent, {a} et {b}',
      broadcast:
        '{fn} : impossible de combiner la forme {a} avec {b} (la seconde doit égaler les dernières ' +
        'dimensions de la première)',
      matmulA: 'matmul : A a la forme {shape}, au moins 1 dimension attendue (..., k)',
      matmulB: 'matmul : B a la forme {shape}, 2 dimensions attendues (k, n)',
      matmulInner: 'matmul : A {a} @ B {b} : la dernière dimension de A, {k}, doit égaler la première de B, {kb}',
      notTwoD: '{fn} : un tenseur à 2 dimensions était attendu, forme reçue : {shape}',
      sumAxis: '{fn} : seul l’axe 0 (ou aucun axe) est pris en charge',
      sumRank: '{fn} : l’axe 0 demande au moins 1 dimension',
      dotLengths: 'dot : les longueurs diffèrent, {a} et {b}',
      outside: '{fn} : l’indice {i} est hors de 0..{max}',
      getIndices: 'get : la forme {shape} demande {n} indices, reçu : {m}',
      getIndex: 'get : l’indice {i} sur l’axe {axis} est hors de 0..{max}',
      erf: 'erf : un nombre était attendu, reçu : {type}',
    },
    worker: {
      deep: 'le résultat est imbriqué sur plus de {max} niveaux (en {path})',
      cycle: 'le résultat contient un cycle (en {path})',
      numbers: 'le résultat contient plus de {max} nombres',
      runNumbers: 'les résultats de l’exécution contiennent plus de {max} nombres en tout',
      array: 'le résultat est un tableau de {n} éléments, plus de {max}',
      keys: 'l’objet résultat a {n} clés, plus de {max}',
      longKey: 'l’objet résultat a une clé de plus de {max} caractères',
      readingThrew: 'la lecture de votre résultat a levé une erreur : {message}',
      threwValue: 'votre code a levé {value} (levez une erreur, new Error(...), pour avoir un numéro de ligne)',
      threwUnreadable: 'votre code a levé un objet illisible',
      noParse: 'l’analyse de votre code a échoué',
      importRefused:
        'l’instruction "import" n’est pas disponible dans les exercices (ni modules ni réseau) ; retirez-la ' +
        '(le mot n’est permis que dans les commentaires et dans les chaînes \'...\' ou "...")',
      closesEarly: 'votre code ferme trop tôt l’enveloppe de l’exercice (une } ou une ) en trop)',
      failed: 'le bac à sable a échoué : une erreur interne a arrêté l’exécution',
      blocked: '{name} est désactivé dans les exercices : votre code s’exécute hors ligne, dans un bac à sable',
      functionCtor:
        'new Function(...) (le constructeur de fonctions) est désactivé dans les exercices : votre code s’exécute ' +
        'hors ligne, dans un bac à sable',
      stringTimer: '{name} : passez une fonction, pas une chaîne de code',
      bad: {
        undefined: 'undefined (avez-vous oublié return ?)',
        null: 'null',
        string: 'une chaîne {text}',
        boolean: 'le booléen {v}',
        bigint: 'un BigInt',
        symbol: 'un Symbol',
        function: 'une fonction',
        promise: 'une Promise (les fonctions d’exercice doivent être synchrones)',
        dataView: 'un DataView',
        bigIntArray: 'un {type}',
      },
    },
    sizesCut: '[{shown},… ({n} tailles)]',
    keysCut: '{shown}, … ({n} clés)',
    site: {
      fixFile:
        'Correctif : servez avec votre site une copie intacte de {file} et donnez son adresse dans la page : ' +
        '{meta}.',
      notThere: '{url} a répondu HTTP {status} : le fichier est absent',
      notFrame:
        '{url} n’est pas le cadre bac à sable de ffn-lab (le serveur a répondu par une autre page, comme ' +
        'l’accueil du site)',
      didNotStart: 'le cadre du bac à sable n’a pas démarré : {problem}. {fix}',
      slow: 'le cadre du bac à sable {url} n’a pas démarré en {s} s. {fix}',
      cspFrame:
        'la politique de sécurité du contenu de cette page ({directive}) interdit de charger le cadre du bac ' +
        'à sable {url}. Correctif : autorisez son origine dans frame-src, par exemple {example} quand ffn-lab est ' +
        'servi par votre site.',
      inlineNamed:
        'le cadre en ligne du bac à sable ({meta}) ne peut pas fonctionner ici : {problem}. Correctif : ' +
        'retirez cette balise <meta>, ou autorisez le cadre en ligne (voir le README de ffn-lab, politique de ' +
        'sécurité du contenu).',
      cannotRun: 'le cadre du bac à sable {url} ne peut pas exécuter les exercices : {problem}',
      scriptRefused:
        'son script a été refusé : une politique de sécurité du contenu autre que celle de sa balise ' +
        '<meta> s’y applique (l’en-tête de votre site ?). Correctif : servez ce fichier sans la politique de votre ' +
        'site, ou hébergez-en une copie sur une autre origine et nommez-la dans {meta}.',
      cspNeeds: 'la politique de sécurité du contenu refuse ce dont le code de l’apprenant a besoin : {detail}',
      inlineNoAnswer: 'le cadre en ligne du bac à sable n’a pas répondu',
      inlineScript: 'la politique de sécurité du contenu de la page a refusé le script du cadre en ligne',
      sources: 'le cadre du bac à sable {url} a refusé ses sources : {detail}',
      chunk:
        'impossible de charger sandbox-inline.js de ffn-lab ({detail}). Correctif : servez tous les fichiers ' +
        'produits par votre outil d’assemblage, ou le dossier {dir} en entier.',
      noUrl:
        '{refused}sans import.meta.url, ffn-lab ne trouve pas son propre frame.html. Assemblez ffn-lab en ' +
        'module ES, ou : {fix}',
      noInline: 'cette page refuse le cadre en ligne du bac à sable ({why}), et ',
      viaFile:
        'la politique de sécurité du contenu de cette page refuse le cadre en ligne du bac à sable ({why}) ; ' +
        'ffn-lab a donc utilisé son fichier de cadre, et {problem}',
    },
    stoppedAfter: 'arrêté après {ms} ms',
    threw: '{name} : {message}{where}',
    missingFn: '{fn} n’est pas définie : écrivez sa définition, {fn}(...) { ... }',
    mismatch: 'premier écart : obtenu {got}, attendu {expected} (écart maximal {error})',
    mismatchAt: 'premier écart en {at} : obtenu {got}, attendu {expected} (écart maximal {error})',
    integerMismatch: 'obtenu {got}, attendu {expected}{off}',
    short: ' ({n} de moins)',
    over: ' ({n} de trop)',
    indexMismatch: '{at} rang ({order}) : obtenu {item}{got}, attendu {item}{expected} ({where})',
    entry: 'dans l’ordre',
    belongs: '{item}{v} : attendu au {at} rang',
    notThere: '{item}{v} ne devrait pas y figurer',
    keyed: '{key} : {problem}',
    returnedNothing: 'ne renvoie rien',
    unreadable: 'renvoie une valeur illisible',
    tooMany: 'renvoie {n} nombres, plus que les {max} lus',
    tooDeep: 'renvoie un tableau imbriqué sur plus de {max} niveaux',
    nestedBut: 'renvoie {what}, mais {why}',
    nested: {
      hole: 'il y a un trou, ou rien, là où une valeur était attendue',
      notNumber: 'on y trouve {what} là où un nombre était attendu',
      ragged: 'les lignes du tableau imbriqué sont de longueurs inégales',
    },
    badData: 'renvoie un tenseur dont data est {what}, et non une liste plate de nombres',
    badShape: 'renvoie un tenseur dont shape est {what}, et non une liste de tailles',
    sizeMismatch: 'renvoie un tenseur de forme {shape} ({n} nombres) mais {m} nombres dans data',
    notTensor: 'renvoie {what} ; attendu : un tenseur {data, shape} ou un tableau imbriqué',
    shape: 'renvoie la forme {got}, attendue : {expected}',
    shapeFlat: 'renvoie la forme {got}, attendue : {expected} (un tableau plat : enveloppez-le dans {data, shape})',
    notIndex: 'renvoie {v} en position {i} ; des indices entiers étaient attendus',
    notInteger: 'renvoie {what} ; un nombre entier était attendu',
    notNumber: 'renvoie {what} ; un nombre était attendu',
    notObject: 'renvoie {what} ; attendu : un objet de clés {{keys}}',
    keyMissing: 'la clé « {key} » manque',
    keysHead: 'clés attendues {expected} ; reçues {got}',
    noKeys: 'aucune clé',
    keysRename: '{head} : renommez {renames}',
    keysMissing: '{head} : il manque {missing}',
    wire: {
      nothing: 'rien',
      number: 'le nombre {v}',
      typed: 'un {type} de longueur {n}',
      typedArray: 'un tableau typé de longueur {n}',
      array: 'un tableau de longueur {n}',
      object: 'un objet de clés {{keys}}',
      malformed: 'un objet mal formé',
      unreadable: 'une valeur illisible',
      unknown: 'une valeur inconnue',
    },
    argument: 'l’argument {n}',
    impure:
      '{fn} modifie son argument {name} sur place : rappelée avec le même {name}, elle donne un autre ' +
      'résultat. Les fonctions doivent être pures : laissez les entrées telles quelles et construisez de nouveaux ' +
      'tenseurs pour les résultats (map(), add(), zeros() et les autres fonctions de la boîte à outils en ' +
      'renvoient de neufs).',
    partial:
      '{message} (Cela explique {k} des {n} tests échoués de {fn} ; les autres échouent pour une autre ' + 'raison.)',
    keys: {
      title: 'Clés du résultat mal orthographiées',
      message:
        'Votre {fn} renvoie un objet dont les clés ne sont pas celles attendues ({problem}). Les clés doivent ' +
        'correspondre exactement : JavaScript distingue majuscules et minuscules, et cet exercice les écrit en ' +
        'camelCase.',
    },
    transposed: {
      title: 'Sortie transposée',
      plain: 'Votre sortie',
      keyed: 'Votre sortie {key}',
      message:
        '{your} contient les bons nombres, mais transposés : forme {got} au lieu de {expected}. Vérifiez ' +
        'l’ordre des facteurs de votre dernier matmul.',
    },
    scaled: {
      title: 'Décalé d’un facteur constant',
      plain: 'Vos valeurs',
      keyed: 'Vos valeurs de {key}',
      negatives: 'les opposées des valeurs attendues',
      times: '{c} fois les valeurs attendues',
      message: '{your} sont {what}. Cherchez un facteur constant (ou un signe) oublié ou en trop.',
    },
    direction: 'Aucune erreur connue ne correspond ; là où {fn} se trompe',
    sentences: '{parts}',
    space: ' ',
    comma: ', ',
    andList: '{head} et {last}',
    blowup:
      'Votre {fn} renvoie NaN ou l’infini là où les valeurs attendues sont finies ({where}). Une formule avec ' +
      'exp ou tanh déborde pour |z| grand : Math.exp(z) vaut Infinity au-delà de z ≈ 709, et Infinity / Infinity ' +
      'donne NaN. Écrivez-la pour que exp ne reçoive que des arguments qui ne peuvent pas déborder, par exemple ' +
      'σ(z) = 1 / (1 + e^(−z)) plutôt que e^z / (1 + e^z), et tanh avec Math.tanh.',
    theTest: 'le test « {name} »',
    nTests: { one: '{n} test', other: '{n} tests' },
    range: {
      nan: 'Elle ne se trompe que là où {name} vaut NaN : NaN doit se propager tel quel.',
      overflow: ' : cherchez un exp ou un tanh qui déborde pour |z| grand',
      below:
        'Elle ne se trompe que pour des entrées inférieures ou égales à {v} (pour tout {name} plus grand, elle ' +
        'est juste){hint}.',
      above:
        'Elle ne se trompe que pour des entrées supérieures ou égales à {v} (pour tout {name} plus petit, elle ' +
        'est juste){hint}.',
      magnitude:
        'Elle ne se trompe que pour des entrées de valeur absolue {v} ou plus (pour tout {name} plus petit ' +
        'en valeur absolue, elle est juste){hint}.',
    },
    failsOnly: 'Elle n’échoue que quand {text}.',
    failsOnlyDefault:
      'Elle n’échoue que quand {text} : donnez à {name} sa valeur par défaut dans la signature, ' + '{name} = {value}.',
    feature: {
      omitted: '{name} est omis',
      is: '{name} vaut {v}',
      equals: '{name} = {v}',
      rank: '{name} est en {n} D',
      row: '{name} n’a qu’une ligne',
      nan: '{name} contient NaN',
      zero: '{name} ne contient que des zéros',
      big: '{name} a des valeurs de 100 ou plus en valeur absolue',
      dim4: '{name} n’est pas un multiple de 4',
    },
    fields: '{wrong} dans chaque test échoué ; {right}.',
    fieldsWrong: { one: '{keys} est faux', other: '{keys} sont faux' },
    fieldsRight: { one: '{keys} est juste', other: '{keys} sont justes' },
  },

  exercise: {
    unknown: 'exercice inconnu « {id} » ; exercices connus : {known}',
    heading: '{number}. {title}',
    section: 'Exercice : {title}',
    examples: 'Exemples',
    toolkit:
      'Disponibles dans votre code : {names}. Un tenseur est un objet {tensor}. Ce qu’affiche {log} apparaît ' +
      'sous les résultats.',
    keys:
      'Tab indente, Maj+Tab désindente, Échap puis Tab quitte l’éditeur, Ctrl+Entrée (⌘+Entrée) lance les ' + 'tests.',
    keysRun: 'Ctrl+Entrée (⌘+Entrée) lance les tests.',
    editorLabel: 'Votre code pour « {title} » : {names}',
    editorRefused: 'editor n’a pas été modifié : il faut un adaptateur d’éditeur (codeMirrorEditor(...)) ou null.',
    run: 'Lancer les tests',
    running: 'Exécution…',
    stop: 'Arrêter',
    hint: 'Indice ({i} sur {n})',
    noMoreHints: 'Plus d’autre indice',
    hints: 'Indices',
    showSolution: 'Voir la solution',
    hideSolution: 'Masquer la solution',
    compareSolution: 'Comparer avec la solution de référence',
    reset: 'Réinitialiser',
    cancel: 'Annuler',
    solutionNote: 'Solution de référence :',
    confirmSolution:
      'Afficher la solution de référence avant d’avoir réussi ? Vous pourrez continuer à ' + 'travailler ensuite.',
    confirmReset:
      'Réinitialiser cet exercice ? Votre code revient au code de départ et la progression enregistrée ' +
      'est effacée.',
    badgePassed: 'Réussi',
    badgeAttempted: 'Pas encore réussi',
    runningTests: 'Exécution des tests cachés…',
    goToLine: 'Aller à la ligne {line}',
    likelyMistake: 'Erreur probable : {title}',
    hiddenTests: 'Tests cachés',
    testPassed: '{name} : réussi',
    testPassedError: '{name} : réussi (écart max. {error})',
    testNotRun: '{name} : non exécuté',
    testTimedOut: '{name} : temps dépassé',
    testFailed: '{name} : échoué',
    tolerance:
      'Une valeur est acceptée si |obtenu − attendu| ≤ {atol} + {rtol}·|attendu| ; les comptes et les ' +
      'indices doivent être exacts. Les valeurs attendues sont calculées par les noyaux wasm de ffn-lab.',
    wellDone: 'Bravo ! Vous pouvez maintenant comparer avec la solution de référence.',
    partialVariant: '(Cela explique {k} des {n} tests échoués de {fn} ; les autres échouent pour une autre raison.)',
    consoleOutput: { one: 'sortie de la console ({n} ligne)', other: 'sortie de la console ({n} lignes)' },
    quoted: '{text} ({n} caractères)',
    timeoutNaN: 'timeout={value} n’est pas un nombre de millisecondes ; valeur retenue : {ms}.',
    timeoutRange: 'timeout={value} sort de l’intervalle de {min} à {max} ms ; valeur retenue : {ms}.',
    storageKey:
      'storage-key={value} est inutilisable (au plus {max} caractères, sans caractère de contrôle) ; la ' +
      'progression n’est conservée que pendant cette visite.',
    numberRefused: '{name}={value} n’est pas affiché : au plus {max} caractères, sans caractère de contrôle.',
    seedRefused: 'seed n’a pas été modifié : il faut un nombre entier ; reçu : {got}.',
    propRefused: '{name} n’a pas été modifié : il faut {kind} ; reçu : {got}.',
    kindString: 'une chaîne de caractères',
    kindNumber: 'un nombre',
    valueKinds: { bigint: 'un BigInt', object: 'un objet', symbol: 'un Symbol', function: 'une fonction' },
    codeRefused: 'le code n’a pas été remplacé : {why}.',
    setupProblem: 'Problème d’installation (votre code n’y est pour rien) : {message}',
    kernelsFailed: 'ffn-lab n’a pas pu charger ses noyaux de calcul : {error} {fix}',
    fixConsole:
      'À faire : consultez la console du navigateur et vérifiez que les fichiers de ffn-lab sont servis ' +
      'tels qu’ils ont été installés.',
    fixCsp: 'À faire : autorisez WebAssembly dans la politique de sécurité (CSP) de la page : {directive}.',
    fixServe:
      'À faire : servez ce fichier (il se trouve à côté de {file} dans ffn-lab), ou chargez les noyaux ' +
      'depuis l’entrée par défaut {entry}, dont le wasm est intégré.',
  },

  storage: {
    nested: 'il est imbriqué sur plus de {depth} niveaux',
    wide: 'il contient un objet ou une liste de plus de {n} éléments au niveau {depth}',
    codeType: 'le code doit être une chaîne de caractères, pas {type}',
    types: {
      number: 'un nombre',
      object: 'un objet',
      boolean: 'un booléen',
      undefined: 'undefined',
      null: 'null',
      bigint: 'un BigInt',
      symbol: 'un Symbol',
      function: 'une fonction',
    },
    codeChars: {
      one: 'le code fait {n} caractère, plus que {max}',
      other: 'le code fait {n} caractères, plus que {max}',
    },
    codeLines: 'le code a plus de {max} lignes',
    status: 'status doit valoir "passed" ou "attempted"',
    passedAt: 'passedAt doit être une date d’au plus {max} caractères',
    solutionShown: 'solutionShown doit valoir true ou false',
    hintsShown: 'hintsShown doit être un nombre entier de 0 à {max}',
    notObject: 'ce n’est pas un objet',
    savedTooLong: {
      one: 'la progression enregistrée fait {n} caractère, plus que les {max} que cette version lit',
      other: 'la progression enregistrée fait {n} caractères, plus que les {max} que cette version lit',
    },
    savedShape: 'la progression enregistrée n’est pas une progression ffn-lab ({why})',
    savedNotJson: 'la progression enregistrée n’est pas du JSON',
    savedNotProgress: 'la progression enregistrée n’est pas une progression ffn-lab',
    savedVersion: 'la progression enregistrée est en version {v} ; cette version-ci est la {current}',
    beyond: 'les entrées au-delà des {max} premiers exercices',
    invalidId: 'une entrée à l’id invalide {id}',
    entry: '{id} ({problems})',
    partOf: 'une partie de {id} ({problems})',
    leftOut: 'une partie de la progression enregistrée n’a pas pu être lue et a été laissée de côté : {named}{more}',
    andMore: ', et {n} de plus',
    comma: ', ',
    wouldBe: {
      one: 'la progression ferait {n} caractère, plus que {max}',
      other: 'la progression ferait {n} caractères, plus que {max}',
    },
    importType: 'la progression doit être un texte JSON (une chaîne) ; reçu : {type}',
    importTooLong: {
      one: 'le texte fait {n} caractère ; une progression en fait au plus {max}',
      other: 'le texte fait {n} caractères ; une progression en fait au plus {max}',
    },
    importShape: 'ce n’est pas une exportation de progression ffn-lab ({why})',
    importNotJson: 'le texte n’est pas du JSON',
    importFormat: 'ce n’est pas une exportation de progression ffn-lab (format attendu : "{format}")',
    importVersion: 'la version {v} de la progression n’est pas prise en charge (cette version-ci est la {current})',
    importExercises: '"exercises" doit être un objet qui associe les id des exercices à leur progression',
    importCount: {
      one: 'le fichier contient {n} exercice ; au plus {max}',
      other: 'le fichier contient {n} exercices ; au plus {max}',
    },
    badId: 'l’id n’est pas fait de 1 à {max} lettres, chiffres, _ ou -',
    noProgress: 'elle ne contient aucune progression',
    first: '{id} : {reason}',
    noEntry: 'aucune entrée n’a pu être importée ({first}) ; rien n’a été modifié',
    cannotReplace: {
      one:
        'impossible de remplacer toute la progression : {n} entrée n’a pas pu être importée ({first}) ; rien n’a ' +
        'été modifié',
      other:
        'impossible de remplacer toute la progression : {n} entrées n’ont pas pu être importées ({first}) ; ' +
        'rien n’a été modifié',
    },
    replaceEmpty:
      'le fichier ne contient aucune progression, et remplacer par lui effacerait tout (utilisez reset() ' +
      'pour cela) ; rien n’a été modifié',
    wouldHold: 'la progression contiendrait {total} exercices, plus que {max} ; rien n’a été modifié',
    writeFailed: '{message} ; rien n’a été modifié',
  },

  progress: {
    title: 'Votre progression',
    saved:
      'Votre code et vos résultats sont enregistrés dans ce navigateur. Pour les retrouver dans un autre ' +
      'navigateur, exportez-les ici puis importez-les là-bas.',
    memoryOnly:
      'Le stockage est bloqué sur cette page : votre progression ne durera que le temps de cette visite. ' +
      'Exportez-la ici pour la conserver.',
    json: 'Progression au format JSON',
    export: 'Exporter toute la progression',
    import: 'Importer',
    exported:
      'Copiez ce texte pour le conserver. Collez-le ici plus tard et appuyez sur Importer pour tout ' + 'restaurer.',
    imported: { one: 'Progression importée pour {n} exercice.', other: 'Progression importée pour {n} exercices.' },
    skipped: {
      one: ' {n} entrée ignorée (l’enregistrement existant est conservé) : {list}.',
      other: ' {n} entrées ignorées (les enregistrements existants sont conservés) : {list}.',
    },
    afterReload: ' Les autres exercices de cette page l’afficheront après un rechargement.',
    importFailed: 'Échec de l’importation : {message}',
    passedOn: 'Vous avez réussi cet exercice le {date}.',
    notAllLoaded: 'Votre progression enregistrée pour cet exercice n’a pas pu être chargée en entier : {problem}.',
    problem: '{problem}.',
  },

  memory: {
    loading: 'Chargement des noyaux du FFN…',
    title: 'Un FFN qui stocke des faits : déplacez la requête et regardez les mémoires s’activer',
    defaultFacts: 'Tokyo>Japon, Paris>France, Rome>Italie',
    defaultDistractors: 'le, de, et',
    inPlane: 'Plan des plongements : positions des jetons, la requête, et la région où chaque mémoire s’active',
    outPlane: 'Plan de sortie : le vecteur qu’écrit le FFN, et les directions de sortie du vocabulaire',
    inCaption: 'Espace des plongements : faites glisser la requête (en bleu) ou utilisez les curseurs',
    outCaption: 'Ce qu’écrit le FFN : somme complète (trait plein), somme partielle top-k (tirets)',
    sliderX: 'Requête, première coordonnée (x)',
    sliderY: 'Requête, seconde coordonnée (y)',
    sliderName: 'requête {axis}',
    sliderText: '{axis} = {value}',
    tokens: 'Placer la requête sur un jeton',
    queryToken: 'Interroger un jeton :',
    orFiller: 'ou un mot de remplissage :',
    tableCaption:
      'Chaque mémoire : sa correspondance avec la requête, son activation, son état et son rang dans la ' +
      'somme partielle top-k',
    colMemory: 'mémoire (clé → valeur)',
    colMatch: 'correspondance x·k+b',
    colBar: 'activation',
    colPhi: 'φ = {act}',
    colState: 'état',
    colTop: 'top-k',
    cellMatch: 'corresp.',
    cellPhi: 'φ',
    cellTop: 'top-k',
    fact: '{key} → {value}',
    keyLine: 'k = ({kx} ; {ky}), b = {b}',
    state: { fires: 's’active', leaks: 'fuit', silent: 'muette' },
    rank: 'nº {n}',
    unranked: '–',
    topNote:
      'top-k classe les mémoires les plus fortes qui ajoutent quelque chose à la somme ; une mémoire muette ' +
      'n’ajoute rien et n’a pas de rang.',
    kLabel: 'top-k',
    kAria: 'top-k : nombre de mémoires les plus fortes dans la somme partielle',
    tLabel: 'seuil',
    tAria: 'seuil : le biais soustrait de chaque correspondance',
    actGroup: 'fonction d’activation',
    actPrefix: 'φ :',
    act: { relu: 'ReLU', gelu: 'GELU', silu: 'SiLU' },
    vec: '({x} ; {y})',
    outFull: 'Requête {near}{q} → le FFN écrit {w}, qui se décode en ',
    near: '« {token} » ',
    nothing: 'rien',
    score: ' (score {s})',
    bestScore: ' (meilleur score {s})',
    outPart: 'Somme partielle top-{k} {v} → {token}{score}',
    fires: 'La mémoire de {key} s’active ({c})',
    firesMore: 'celle de {key} aussi ({c})',
    noneFires: 'Aucune mémoire ne s’active',
    writesToken: ' et écrit {token} (score {s})',
    writesNoToken: ', mais ce qui est écrit, {w}, ne se décode en aucun jeton',
    leaksWrite: {
      one: ', mais {n} mémoire fuit à travers {act} et écrit {w}',
      other: ', mais {n} mémoires fuient à travers {act} et écrivent {w}',
    },
    leaksDecode: ', ce qui se décode en {token} (score {s})',
    leaksTooWeak: ', trop faible pour se décoder en un jeton',
    leaksCancel: {
      one: ' ; {n} mémoire fuit à travers {act}, mais sans effet : rien n’est écrit',
      other: ' ; {n} mémoires fuient à travers {act}, mais leurs écritures s’annulent : rien n’est écrit',
    },
    nothingWritten: ' ; rien n’est écrit',
    alsoLeak: { one: ' ; {n} mémoire fuit à travers {act}', other: ' ; {n} mémoires fuient à travers {act}' },
    end: '.',
    listSep: ', ',
  },

  plot: {
    loading: 'Chargement des noyaux d’activation…',
    title: 'Les activations, leurs pentes, et l’écart des approximations de GELU',
    legend: 'Afficher ou masquer des courbes',
    curves: {
      relu: 'ReLU',
      relu2: 'ReLU au carré',
      gelu: 'GELU (exacte)',
      gelu_tanh: 'GELU (tanh)',
      gelu_sigmoid: 'GELU (sigmoïde)',
      silu: 'SiLU',
    },
    slider: 'Position de lecture x (les flèches la déplacent)',
    hint:
      'Survolez ou touchez le graphique, ou donnez-lui le focus et utilisez les flèches (Maj pour de plus grands ' +
      'pas) pour lire les valeurs.',
    tableCaption: 'Valeurs à la position de lecture',
    colActivation: 'activation',
    colValue: 'φ(x)',
    colSlope: 'φ′(x)',
    plot:
      'Trois panneaux : les valeurs des activations, leurs dérivées, et l’erreur absolue des deux ' +
      'approximations de GELU en échelle logarithmique',
    panels: { values: 'φ(x)', slopes: 'φ′(x), la pente', errors: '|approchée − GELU exacte|, échelle log.' },
    names: { gelu: 'GELU', silu: 'SiLU', tanh: 'tanh', sigmoid: 'sigmoïde' },
    minimum: '{name} : min. {y} en x = {x}',
    minimumLine1: '{name} : min. {y}',
    minimumLine2: 'en x = {x}',
    peak: '{name} : max. {err}',
    peakLine1: '{name} : max.',
    peaks:
      'Plus grandes erreurs de GELU sur [−6 ; 6] : forme tanh {tErr} en x = {tX}, forme sigmoïde {sErr} en ' +
      'x = {sX}.',
    readX: 'En x = {x}',
    errHere: 'Erreur de GELU ici : forme tanh {t}, forme sigmoïde {s}.',
    valueText: 'x = {x} ; GELU {g} ; SiLU {s}',
    announce: 'x = {x} : GELU {g} ; SiLU {s} ; ReLU {r}',
    logTick: '1e{v}',
  },

  calculator: {
    loading: 'Chargement des noyaux de comptage…',
    title: 'Où se trouvent les paramètres : un bloc, compté',
    presets: 'Préréglages',
    presetsLead: 'Préréglages :',
    presetLabels: {
      transformer: 'Transformer d’origine (base)',
      gpt2: 'GPT-2 small',
      llama7b: 'LLaMA-7B',
      llama3_8b: 'LLaMA-3 8B (GQA)',
      llama2_70b: 'LLaMA-2 70B (GQA)',
      qwen3_moe: 'Qwen3-30B-A3B (MoE)',
    },
    form: 'Configuration du bloc',
    d: 'd (largeur du modèle)',
    rule: 'largeur cachée',
    ruleExplicit: 'fixer d_ff directement',
    ruleLlama: 'règle de LLaMA (8d/3, arrondie)',
    dff: 'd_ff (par expert avec MoE)',
    multipleOf: 'multiple_of',
    multiplier: 'ffn_dim_multiplier (vide = aucun)',
    gated: 'à porte (SwiGLU : 3 matrices)',
    bias: 'biais',
    heads: 'têtes d’attention H',
    kvHeads: 'têtes KV H_kv',
    headDim: 'dimension d’une tête (vide = d/H)',
    moe: 'mélange d’experts',
    experts: 'nombre d’experts',
    active: 'experts actifs par jeton',
    shared: 'experts partagés',
    card: {
      dff: 'largeur cachée d_ff',
      ffnParams: 'paramètres du FFN par couche',
      attnParams: 'paramètres des projections d’attention',
      share: 'part du FFN dans le bloc',
      ffnFlops: 'FLOP de la passe avant du FFN par jeton',
      attnFlops: 'FLOP des projections d’attention par jeton',
      moeTotal: 'MoE : paramètres du FFN au total',
      moeActive: 'MoE : paramètres actifs du FFN par jeton',
      moeFlops: 'MoE : FLOP actifs du FFN par jeton',
    },
    expertParams: 'paramètres d’un expert (un FFN)',
    activeFlops: 'FLOP actifs de la passe avant du FFN par jeton',
    billion: { one: '{x} milliard', other: '{x} milliards' },
    million: { one: '{x} million', other: '{x} millions' },
    ratio: '{r} × d',
    ratioGated: '{r} × d, à porte',
    percent: '{p} %',
    gqa: ' (GQA : {kv} têtes KV pour {h})',
    shareActive: 'actifs seulement : {p} %',
    shareDef: 'FFN / (FFN + projections d’attention)',
    perWeight: '2 par poids',
    activePlusRouter: 'experts actifs plus le routeur',
    scores: 'plus 4·T·d pour les scores sur T jetons',
    moeTotalNote: '{big} : {e} experts + routeur',
    moeTotalNoteShared: '{big} : {e} experts + {s} partagés + routeur',
    moeActiveNote: '{a} experts + routeur, {pct} % du total',
    moeActiveNoteShared: '{a} experts + {s} partagés + routeur, {pct} % du total',
    moeFlopsNote: 'contre {dense} si tous les experts calculaient',
    key: 'FFN ',
    keyAttn:
      'projections d’attention (les normalisations, les plongements et les scores d’attention sur le ' +
      'contexte ne sont pas comptés)',
    announce: 'd_ff {dff} ; FFN : {params} paramètres, {pct} % du bloc',
  },

  errors: {
    load: 'impossible de charger les noyaux de calcul : {message}',
    mustBeString: '{name} doit être une chaîne de caractères, reçu : {type}',
    tooLong: '{name} fait {n} caractères ; au plus {max} sont acceptés',
    mustBeNumber: '{name} doit être un nombre, reçu : {got}',
    numberTooLarge: '{name} est trop grand : {got}',
    numberRange: '{name} doit être compris entre {min} et {max}, reçu : {got}',
    mustBeFinite: '{name} doit être un nombre fini, reçu : {got}',
    wholeNumber: '{name} doit être un nombre entier, reçu : {got}',
    unknownAttribute: 'attribut inconnu {name}',
    factKey: 'clé du fait {i}',
    factValue: 'valeur du fait {i}',
    factThreshold: 'seuil du fait {i}',
    factsAttr: 'facts',
    distractorsAttr: 'distractors',
    distractorToken: 'mot de remplissage {i}',
    labelTooLong: '{name} fait {n} caractères ; au plus {max}',
    labelEmpty: '{name} est vide',
    labelChars: '{name} {label} compte {n} caractères ; au plus {max}',
    labelBad: '{name} {label} ne peut pas contenir « > », « @ », « , », « ; » ni de caractère de contrôle',
    labelBadWord:
      '{name} {label} ne peut pas contenir d’espace, ni « > », « @ », « , », « ; » ou un caractère ' + 'de contrôle',
    factCount: 'facts : il faut de 1 à {max} faits, reçu : {n}',
    factObject: 'facts : le fait {i} doit être un objet { key, value, threshold? }',
    factSyntax: 'facts : le fait {i} {fact} doit s’écrire comme "Tokyo>Japon" ou "Tokyo>Japon@1.5"',
    factsType: 'facts : il faut une chaîne comme "Tokyo>Japon, Paris>France" ou un tableau de { key, value }',
    factTwice: 'facts : le jeton clé {key} apparaît deux fois',
    factThresholdNumber: 'facts : le seuil du fait {i} doit être un nombre, reçu : {got}',
    distractorCount: 'distractors : au plus {max} mots de remplissage, reçu : {n}',
    queryShape: '{name} doit s’écrire "x,y", reçu : {got}',
    queryNumbers: '{name} doit s’écrire "x,y" avec deux nombres finis, reçu : {got}',
    activation: '{name} doit valoir {list}, reçu : {got}',
    hashKey: 'sync-hash doit être un nom fait de lettres, de chiffres, de - et de _ (au plus 32), reçu : {got}',
    hashPart: '{part} (attendu : q:x,y, k:n, t:seuil ou a:activation)',
    hashIgnored: 'sync-hash : ignoré {parts}',
    hashTooLong: 'sync-hash : le fragment de l’URL fait {n} caractères ; au plus {max} sont lus',
    hashName: 'sync-hash {name}',
    hashValue: 'valeur de sync-hash',
    noToken: 'token : aucun jeton ne s’appelle {name}',
    range:
      'range doit s’écrire "lo,hi" avec lo < hi, tous deux dans [-{limit} ; {limit}] et écartés d’au moins ' +
      '{span}, reçu : {got}',
    curves: 'curves : courbe inconnue {id} ; courbes possibles : {list}',
    computeBlock: '{inner}',
    posInt: '{name} doit être un entier strictement positif d’au plus {max}, reçu : {got}',
    nonNegInt: '{name} doit être un entier positif ou nul d’au plus {max}, reçu : {got}',
    configObject: 'la configuration doit être un objet',
    headsMultiple: 'heads ({heads}) doit être un multiple de kvHeads ({kv})',
    headsDivide: 'd ({d}) n’est pas divisible par heads ({heads}) ; précisez headDim',
    dffMode: 'dffMode doit valoir "explicit" ou "llama", reçu : {got}',
    multiplier: 'multiplier doit être null ou un nombre dans {range}, reçu : {got}',
    moeObject: 'moe doit être null ou { experts, active, shared }',
    activeExceed: 'le nombre d’experts actifs ({active}) dépasse celui des experts ({experts})',
    presetsJson: 'presets doit être du JSON : un tableau de { id, label, d, dff, heads, kvHeads, ... } ({why})',
    presetsArray: 'presets doit être un tableau de { id, label, d, dff, heads, kvHeads, ... }',
    presetsCount: 'presets : au plus {max} préréglages, reçu : {n}',
    presetObject: 'presets : le préréglage {i} doit être un objet { id, label, ... }',
    presetFields: 'presets : le préréglage {i} a {n} champs',
    presetUnknownField: 'presets : le préréglage {i} a un champ inconnu, {field} ; champs possibles : {fields}',
    presetId:
      'presets : le préréglage {i} doit avoir un id fait de lettres, de chiffres, de - et de _ (au plus 32), ' +
      'reçu : {got}',
    presetBuiltIn: 'presets : l’id {id} du préréglage {i} est celui d’un préréglage intégré',
    presetTwice: 'presets : l’id {id} apparaît deux fois',
    presetLabel: 'presets : le préréglage {id} doit avoir un label de 1 à 80 caractères',
    presetConfig: 'presets : préréglage {id} : {inner}',
    bool: '{name} doit valoir "true" ou "false" (ou être présent sans valeur), reçu : {got}',
    presetIdSyntax: 'préréglage inconnu {got} ; un id est fait de lettres, de chiffres, de - et de _',
    rule: 'rule doit valoir "llama" ou "explicit", reçu : {got}',
    unknownPreset: 'préréglage inconnu {id} ; préréglages possibles : {known}',
    quoteCut: '{text}… ({n} caractères)',
    listSep: ' ; ',
  },

  lab: {
    loading: 'Chargement des noyaux du FFN…',
    title: 'Le labo de mémoire : un FFN apprend {n} faits dans votre navigateur',
    relation: { capital: 'capitale', continent: 'continent', currency: 'monnaie', language: 'langue' },
    fact: '{subject} · {relation} → {object}',
    trainHeading: '1. Entraîner',
    train: 'Entraîner',
    pause: 'Pause',
    step: 'Un pas',
    reset: 'Réinitialiser',
    seed: 'Graine',
    dff: 'Mémoires (d_ff)',
    controls: 'Commandes de l’entraînement',
    statusIdle: 'Pas encore entraîné : {n} faits, {dff} mémoires, poids aléatoires.',
    status: 'Pas {step} : perte {loss}, {stored} faits retenus sur {n} ({pct} %).',
    notFinite: 'Entraînement arrêté : la perte n’est plus un nombre fini. Réinitialisez pour recommencer.',
    curve: 'Perte et part des faits retenus, pas à pas',
    curveLoss: 'perte',
    curveAcc: 'retenus',
    inspectHeading: '2. Examiner un fait',
    search: 'Chercher un fait',
    list: 'Faits ({n} affichés)',
    noMatch: 'Aucun fait ne correspond.',
    answer: 'Le modèle répond {object} (probabilité {p}).',
    answerWrong: 'Le modèle répond {object}, et non {expected} (probabilité {p}).',
    firing:
      '{k} mémoires sur {dff} s’activent pour ce fait. Les plus fortes, avec ce que chacune ajoute au logit de ' +
      '{object} :',
    tableCaption: 'Mémoires actives pour {fact} : activation a et contribution a × (valeur · U[{object}])',
    colMemory: 'mémoire',
    colActivation: 'activation',
    colContribution: 'contribution',
    memory: 'mémoire {i}',
    rest: '{n} autres mémoires actives',
    residual: 'l’entrée elle-même (résiduel)',
    sum: 'Somme : {sum}. Le logit de {object} : {logit}.',
    memoryHeading: 'Mémoire {i}',
    promotes: 'Sa valeur projetée sur les objets favorise :',
    triggers: 'Elle s’active le plus pour :',
    use:
      'Elle s’active pour {fires} des {n} faits, et favorise le bon objet pour {helps} d’entre eux : une mémoire, ' +
      'plusieurs faits.',
    sharing: 'En moyenne, {mean} mémoires s’activent pour un fait ; {silent} mémoires ne s’activent pour aucun.',
    capacityHeading: '3. Capacité',
    capacityText:
      'Chaque taille entraînée depuis la même graine : avec trop peu de mémoires, des faits ne sont pas retenus ; ' +
      'bien moins de mémoires que de faits suffisent déjà à tous les retenir.',
    measure: 'Mesurer chaque taille',
    stopMeasure: 'Arrêter',
    capacityPlot: 'Faits retenus après {steps} pas selon d_ff, mesurés dans cette page',
    capacityNone: 'Aucune taille mesurée pour l’instant.',
    colStored: 'faits retenus',
    editHeading: '4. Modifier un fait',
    newObject: 'Nouvel objet',
    rankOne: 'Modification de rang un',
    fineTune: 'Réentraînement',
    undo: 'Annuler',
    editFirst: 'Entraînez jusqu’à ce que les faits soient retenus, puis modifiez-en un.',
    method: 'méthode',
    efficacy: 'fait modifié',
    specificity: 'autres faits conservés',
    neighbours: 'les autres faits du sujet',
    steps: 'pas',
    now: 'désormais {object}',
    kept: '{k} sur {n}',
    relKept: '{relation} : conservé',
    relLost: '{relation} : désormais {object}',
    undone: 'Annulé : les poids entraînés sont revenus, bit pour bit.',
    edited: 'Modifié par {method} : {fact}.',
    err: {
      type: 'facts doit être un texte, un fait par ligne (« Japon | capitale | Tokyo »), ou un tableau ; reçu {got}',
      count: 'facts : de 1 à {max} faits attendus, reçu {n}',
      atLine: 'ligne {line}',
      atItem: 'fait {i}',
      item: 'facts, {where} : { subject, relation, object } ou [sujet, relation, objet] attendu',
      fields: 'facts, {where} : {text} devrait être « sujet | relation | objet » (3 champs), il en a {n}',
      subject: 'sujet',
      relation: 'relation',
      object: 'objet',
      fieldType: 'facts, {where} : le champ {field} doit être une chaîne',
      fieldEmpty: 'facts, {where} : le champ {field} est vide',
      fieldLong: 'facts, {where} : le champ {field} {label} dépasse {max} caractères',
      fieldChars: 'facts, {where} : le champ {field} {label} ne peut contenir ni « | » ni caractère de contrôle',
      repeat: 'facts, {where} répète {first}',
      contradiction: 'facts, {where} : {subject} · {relation} vaut {object}, mais {first} dit {other}',
      seed: 'seed doit être un nombre entier de 1 à {max}, reçu {got}',
      dff: 'd-ff doit valoir l’une des tailles {list}, reçu {got}',
      factName: 'fact doit être « sujet · relation » (ou « sujet | relation »), reçu {got}',
      noFact: 'fact : aucun fait {subject} · {relation}',
      memory: 'memory doit être inférieur à d_ff ({dff}), reçu {got}',
    },
  },

  embed: {
    queryTooLong:
      'La requête de l’URL compte {n} caractères ; au plus {max} sont lus : ses paramètres ont été ignorés.',
    theme: 'theme={value} ne vaut ni "dark" ni "light" ; il a été ignoré.',
    id:
      'id={value} ne compte pas de 1 à {max} lettres, chiffres, "_", ".", ":" ou "-" ; les messages de hauteur ' +
      'ne portent pas d’id.',
    lang: 'lang={value} n’est pas une étiquette de langue comme "fr" ou "pt-BR" ; il a été ignoré.',
  },
};

/** French spacing: a no-break space before « : », a narrow one before « ; ? ! » and inside guillemets. */
function typo(v) {
  if (typeof v === 'string') {
    return v
      .replace(/ ([:])/g, '\u00a0$1')
      .replace(/ ([;?!])/g, '\u202f$1')
      .replace(/« /g, '«\u202f')
      .replace(/ »/g, '\u202f»')
      .replace(/(\d) %/g, '$1\u202f%')
      .replace(/\} %/g, '}\u202f%');
  }
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, typo(x)]));
  return v;
}

export default typo(table);
