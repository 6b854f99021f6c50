// Les huit exercices intégrés en français : titres, niveaux, énoncés, indices, exemples et erreurs connues.
// Each entry is an exercise's `translations.fr` (see "Translate an exercise" in web/sandbox/AUTHORING.md): variants
// and hidden tests are keyed by their ids, so a test keeps its French when its English name changes.

export const gelu = {
  title: 'GELU, exacte et approchée',
  level: 'Échauffement',
  prompt: `<p>GELU pondère son entrée par la probabilité qu’une variable normale centrée réduite lui soit inférieure :
<code>GELU(z) = z·Φ(z) = (z/2)·(1 + erf(z/√2))</code>. GPT-2 et bien des bibliothèques utilisent l’approximation par
tanh <code>(z/2)·(1 + tanh(√(2/π)·(z + 0.044715·z³)))</code>, proche (à environ 5e-4 près) mais pas égale.</p>
<p>Écrivez <code>gelu(x)</code> (la forme exacte, avec erf) et <code>geluTanh(x)</code> pour un tenseur <code>x</code>
de forme quelconque. Renvoyez un tenseur de même forme. La boîte à outils vous fournit <code>erf</code> et
<code>map</code>.</p>`,
  hints: [
    'Les deux fonctions agissent élément par élément : écrivez une fois la formule pour un nombre et appliquez-la ' +
      'avec map(x, z => ...). map conserve la forme pour vous.',
    'Exacte : Φ(z) = (1 + erf(z/√2)) / 2, et √2 s’écrit Math.SQRT2. Approchée : la constante devant la parenthèse ' +
      'est √(2/π) = Math.sqrt(2 / Math.PI), et le terme cubique vaut 0.044715·z³.',
    'gelu : map(x, z => 0.5 * z * (1 + erf(z / Math.SQRT2))). geluTanh : le même 0.5 * z * (1 + ...), avec ' +
      'Math.tanh(c * (z + 0.044715 * z ** 3)) dans la parenthèse. Vérifiez que vous n’avez pas interverti les deux.',
  ],
  examples: [
    'gelu(tensor([-1, 0, 1, 2]))      -> data ≈ [-0.158655, 0, 0.841345, 1.954500], shape [4]',
    'geluTanh(tensor([-1, 0, 1, 2]))  -> data ≈ [-0.158808, 0, 0.841192, 1.954598], shape [4]',
  ],
  variants: {
    'gelu-swapped': {
      title: 'GELU exacte et GELU tanh interverties',
      message: {
        gelu:
          'Votre gelu donne l’approximation par tanh. gelu doit être la forme exacte avec erf ; la ' +
          'formule avec tanh va dans geluTanh.',
        geluTanh:
          'Votre geluTanh donne la forme exacte avec erf. geluTanh est l’approximation ' +
          'tanh(√(2/π)(z + 0.044715 z³)).',
      },
    },
    'gelu-sigmoid-form': {
      title: 'La forme sigmoïde en 1,702',
      message: {
        gelu:
          'Votre gelu donne z·σ(1,702 z), l’approximation sigmoïde, plus grossière (jusqu’à environ ' +
          '0,02 d’écart). Utilisez la forme avec erf.',
        geluTanh:
          'Votre geluTanh donne z·σ(1,702 z), une autre approximation, plus grossière. La forme ' +
          'tanh est (z/2)(1 + tanh(√(2/π)(z + 0.044715 z³))).',
      },
    },
    'gelu-missing-half': {
      title: 'Le facteur 1/2 manque',
      message: {
        gelu:
          'Votre gelu vaut exactement le double de GELU : la formule est (z/2)(1 + erf(z/√2)). Une ' +
          'grande entrée positive doit ressortir inchangée, pas doublée.',
        geluTanh: 'Votre geluTanh vaut exactement le double de l’approximation : la formule commence par z/2.',
      },
    },
    'gelu-missing-cubic': {
      title: 'Le terme cubique manque',
      message: 'Votre geluTanh oublie 0.044715·z³ dans la tanh ; l’argument est √(2/π)·(z + 0.044715·z³).',
    },
  },
  // each hidden test's name, by the test's id
  tests: {
    'gelu-one': 'gelu : un seul nombre, forme [1]',
    'gelu-seven': 'gelu : 7 valeurs dans [-4, 4]',
    'gelu-matrix': 'gelu : une matrice 3×5',
    'gelu-batch': 'gelu : un lot, forme [2,3,5]',
    'gelu-zeros': 'gelu : des zéros',
    'gelu-large': 'gelu : grandes valeurs absolues (±10, ±50, ±1e4)',
    'gelu-overflow': 'gelu : au-delà du domaine d’exp, où les formules naïves débordent (±300, ±710, ±1000)',
    'gelu-minimum': 'gelu : près du minimum, environ -0,170 en z ≈ -0,752',
    'gelu-nan': 'gelu : NaN se propage',
    'gelu-tanh-one': 'geluTanh : un seul nombre, forme [1]',
    'gelu-tanh-seven': 'geluTanh : 7 valeurs dans [-4, 4]',
    'gelu-tanh-matrix': 'geluTanh : une matrice 3×5',
    'gelu-tanh-batch': 'geluTanh : un lot, forme [2,3,5]',
    'gelu-tanh-zeros': 'geluTanh : des zéros',
    'gelu-tanh-large': 'geluTanh : grandes valeurs absolues (±10, ±50, ±1e4)',
    'gelu-tanh-overflow': 'geluTanh : au-delà du domaine d’exp, où les formules naïves débordent (±300, ±710, ±1000)',
    'gelu-tanh-minimum': 'geluTanh : près du minimum, environ -0,170 en z ≈ -0,752',
    'gelu-tanh-nan': 'geluTanh : NaN se propage',
  },
};

export const ffn = {
  title: 'La passe avant du FFN et son nombre de paramètres',
  level: 'Essentiel',
  prompt: `<p>Pour une séquence <code>X</code> de forme <code>(..., d)</code>, le réseau feed-forward applique les
deux mêmes couches à chaque ligne : <code>FFN(X) = GELU(X·W1 + b1)·W2 + b2</code>, avec <code>W1 (d, dFF)</code>,
<code>b1 (dFF)</code>, <code>W2 (dFF, d)</code>, <code>b2 (d)</code>. Utilisez la GELU tanh, comme GPT-2. La sortie a la
forme de <code>X</code>.</p>
<p>Écrivez aussi <code>ffnParamCount(d, dFF, bias = true, gated = false)</code>. Un FFN sans porte a deux matrices
<code>d × dFF</code> et <code>dFF + d</code> biais ; un FFN à porte (exercice suivant) a trois matrices et
<code>2·dFF + d</code> biais. GPT-2 small (d = 768, dFF = 3072) en a 4 722 432 par couche.</p>`,
  hints: [
    'Suivez les formes de droite à gauche : X (..., d) @ W1 (d, dFF) donne (..., dFF) ; ajoutez b1 à chaque ligne ; ' +
      'appliquez GELU élément par élément ; @ W2 (dFF, d) redonne (..., d) ; ajoutez b2. Le matmul de la boîte à ' +
      'outils gère déjà les dimensions de lot en tête.',
    'add(A, b) diffuse une ligne de biais b sur la dernière dimension de A : add(matmul(X, W1), b1) est donc la ' +
      'pré-activation cachée. Pour le compte, les poids sont (gated ? 3 : 2)·d·dFF.',
    'ffn : add(matmul(map(add(matmul(X, W1), b1), geluTanh), W2), b2) avec votre GELU tanh pour un nombre. Compte : ' +
      'poids + (bias ? (gated ? 2·dFF : dFF) + d : 0). Vérifiez que les valeurs par défaut fonctionnent quand seuls ' +
      'd et dFF sont donnés.',
  ],
  examples: [
    'ffn(tensor([[1, 2]]), tensor([[1, 0, -1], [0, 1, 1]]), tensor([0, 0, 0.5]), tensor([[1, 0], [0, 1], [1, 1]]), ' +
      'tensor([0.1, -0.1]))  -> data ≈ [2.340764, 3.254169], shape [1,2]',
    'ffnParamCount(768, 3072)  -> 4722432',
  ],
  variants: {
    'ffn-exact-gelu': {
      title: 'GELU exacte au lieu de la GELU tanh',
      message:
        'Votre FFN donne celui qui utilise la GELU exacte (erf). Cet exercice, comme GPT-2, utilise ' +
        'l’approximation par tanh ; les deux diffèrent d’environ 5e-4 au plus par unité cachée.',
    },
    'ffn-missing-b1': {
      title: 'b1 manque',
      message: 'Votre FFN donne celui qui n’a pas de biais caché b1. Ajoutez b1 à X·W1 avant la GELU.',
    },
    'ffn-missing-b2': {
      title: 'b2 manque',
      message: 'Votre FFN donne celui qui n’a pas de biais de sortie b2. Ajoutez b2 après le second matmul.',
    },
    'ffn-relu': {
      title: 'ReLU au lieu de GELU',
      message: 'Votre FFN donne celui qui a une ReLU dans la couche cachée. Utilisez la GELU tanh.',
    },
    'count-without-biases': {
      title: 'Compte sans les biais',
      message:
        'Votre compte oublie les biais même quand bias vaut true. Ajoutez dFF + d (sans porte) ou ' +
        '2·dFF + d (à porte).',
    },
    'count-gated-ungated-biases': {
      title: 'Biais d’un FFN sans porte pour un FFN à porte',
      message:
        'Pour un FFN à porte, vous avez compté dFF + d biais. Un FFN à porte a deux projections ' +
        'cachées (porte et montée) : ses biais sont 2·dFF + d.',
    },
    'count-gated-two-matrices': {
      title: 'FFN à porte compté avec deux matrices',
      message:
        'Pour un FFN à porte, vous avez compté deux matrices de poids. Il en a trois : porte, ' + 'montée et descente.',
    },
  },
  // each hidden test's name, by the test's id
  tests: {
    'ffn-one-token-d-5-dff-12': 'ffn : un jeton, d = 5, dFF = 12',
    'ffn-4-tokens-d-7-not-a-multiple': 'ffn : 4 jetons, d = 7 (pas un multiple de 4), dFF = 20',
    'ffn-a-batch-of-2x3-tokens-d-6': 'ffn : un lot de 2×3 jetons, d = 6, dFF = 16',
    'ffn-a-single-vector-x-of-shape': 'ffn : un seul vecteur x de forme [8], dFF = 8',
    'ffn-zero-input-the-output-is': 'ffn : entrée nulle (la sortie vaut GELU(b1)·W2 + b2)',
    'ffn-d-1-dff-3': 'ffn : d = 1, dFF = 3',
    'ffn-overflow': 'ffn : pré-activations de ±250 à ±1000 (où un tanh écrit avec exp déborde)',
    'count-gpt-2-small-d-768-dff-3072': 'ffnParamCount : GPT-2 small, d = 768, dFF = 3072 (valeurs par défaut)',
    'count-the-original-transformer-d': 'ffnParamCount : le Transformer original, d = 512, dFF = 2048',
    'count-no-biases': 'ffnParamCount : sans biais',
    'count-gated-with-biases-d-4096': 'ffnParamCount : à porte, avec biais, d = 4096, dFF = 11008',
    'count-gated-without-biases-llama': 'ffnParamCount : à porte, sans biais (LLaMA-7B)',
    'count-small-gated-with-biases-d-5': 'ffnParamCount : petit, à porte, avec biais, d = 5, dFF = 7',
  },
};

export const swiglu = {
  title: 'Un FFN SwiGLU à la manière de LLaMA',
  level: 'Entretien',
  prompt: `<p>Écrivez <code>swigluFfn(X, Wg, Wu, Wd)</code> = <code>(SiLU(X·Wg) ⊙ X·Wu)·Wd</code> pour
<code>X (..., d)</code>, avec <code>Wg, Wu (d, dFF)</code>, <code>Wd (dFF, d)</code> et sans biais.
<code>SiLU(z) = z·σ(z)</code> ; ⊙ est le produit élément par élément. La branche de porte reçoit la non-linéarité ;
la branche montante reste linéaire.</p>
<p>Et <code>llamaHiddenDim(d, multipleOf = 256, ffnDimMultiplier = null)</code> : partez de la partie entière de
<code>2·(4d)/3</code>, multipliez par <code>ffnDimMultiplier</code> et reprenez la partie entière s’il est donné, puis
arrondissez <em>vers le haut</em> à un multiple de <code>multipleOf</code>. LLaMA-7B (d = 4096) obtient 11 008 ;
LLaMA 3 8B (d = 4096, multiplicateur 1,3, multiple 1024) obtient 14 336.</p>`,
  hints: [
    'Deux projections du même X : G = X·Wg et U = X·Wu, toutes deux (..., dFF). Seul G passe par SiLU. Multipliez ' +
      'élément par élément, puis redescendez avec Wd.',
    'SiLU(z) = z / (1 + e^(-z)). Pour la largeur l : l = Math.trunc(2 * 4 * d / 3), puis l = ' +
      'Math.trunc(ffnDimMultiplier * l) si le multiplicateur n’est pas null, puis multipleOf * Math.ceil(l / ' +
      'multipleOf).',
    'swigluFfn : matmul(mul(map(matmul(X, Wg), silu), matmul(X, Wu)), Wd). Vérifiez la largeur : 4096 -> 11008 et ' +
      '5120 -> 13824 (et non 13568 : on arrondit vers le haut, pas au plus proche), et appliquez le multiplicateur ' +
      'avant d’arrondir.',
  ],
  examples: [
    'swigluFfn(tensor([[1, -1]]), tensor([[1, 0], [0, 1]]), tensor([[2, 0], [0, 3]]), tensor([[1], [1]]))  -> data ≈ ' +
      '[2.268941], shape [1,1]',
    'llamaHiddenDim(4096)  -> 11008',
  ],
  variants: {
    'swiglu-silu-on-up': {
      title: 'SiLU sur la branche montante',
      message:
        'Votre sortie correspond à SiLU appliquée à X·Wu, X·Wg restant linéaire. C’est la ' +
        'projection de porte Wg qui reçoit la SiLU ; la branche montante X·Wu reste linéaire.',
    },
    'swiglu-sigmoid': {
      title: 'Sigmoïde au lieu de SiLU',
      message:
        'Votre sortie correspond à σ(X·Wg) ⊙ X·Wu, le GLU d’origine. SwiGLU utilise SiLU(z) = ' +
        'z·σ(z) : multipliez la sigmoïde par son entrée.',
    },
    'swiglu-gelu': {
      title: 'GELU au lieu de SiLU (GEGLU)',
      message: 'Votre sortie correspond à GEGLU, une porte GELU. SwiGLU utilise SiLU(z) = z·σ(z).',
    },
    'swiglu-no-up': {
      title: 'La branche montante manque',
      message: 'Votre sortie correspond à SiLU(X·Wg)·Wd : la porte ne multiplie jamais la projection montante X·Wu.',
    },
    'llama-rounded-down': {
      title: 'Arrondi vers le bas',
      message:
        'Vous avez arrondi au multiple inférieur. LLaMA arrondit vers le haut : 10 922 devient 43 × ' +
        '256 = 11 008, et non 10 752.',
    },
    'llama-nearest': {
      title: 'Arrondi au multiple le plus proche',
      message:
        'Vous avez arrondi au multiple le plus proche. LLaMA arrondit toujours vers le haut (d = ' +
        '5120 donne 13 824, et non 13 568).',
    },
    'llama-not-rounded': {
      title: 'Pas d’arrondi au multiple',
      message:
        'Vous avez renvoyé la largeur avant l’arrondi. Terminez en arrondissant vers le haut à un ' +
        'multiple de multipleOf, pour que les matrices se découpent bien en tuiles (10 922 -> 11 ' +
        '008).',
    },
    'llama-without-two-thirds': {
      title: 'Sans le facteur 2/3',
      message:
        'Vous êtes parti de 4d. Le FFN à porte a trois matrices : LLaMA multiplie donc le 4d ' +
        'classique par 2/3 (la règle des 8/3) avant d’arrondir.',
    },
    'llama-multiplier-after-rounding': {
      title: 'Multiplicateur appliqué après l’arrondi',
      message:
        'Vous avez appliqué ffnDimMultiplier après l’arrondi. Multipliez d’abord (et prenez la ' +
        'partie entière), puis arrondissez vers le haut au multiple.',
    },
  },
  // each hidden test's name, by the test's id
  tests: {
    'swiglu-one-token-d-6-dff-10': 'swigluFfn : un jeton, d = 6, dFF = 10',
    'swiglu-5-tokens-d-7-not-a-multiple': 'swigluFfn : 5 jetons, d = 7 (pas un multiple de 4), dFF = 12',
    'swiglu-a-batch-of-2x3-tokens-d-5': 'swigluFfn : un lot de 2×3 jetons, d = 5, dFF = 8',
    'swiglu-a-single-vector-x-of-shape': 'swigluFfn : un seul vecteur x de forme [9], dFF = 4',
    'swiglu-saturated-gates-x-wg-up-to': 'swigluFfn : portes saturées (|X·Wg| jusqu’à 30 environ)',
    'swiglu-overflow': 'swigluFfn : portes de ±250 à ±1000 (où e^z déborde)',
    'width-llama-7b-d-4096': 'llamaHiddenDim : LLaMA-7B, d = 4096',
    'width-llama-13b-d-5120': 'llamaHiddenDim : LLaMA-13B, d = 5120',
    'width-llama-65b-d-8192': 'llamaHiddenDim : LLaMA-65B, d = 8192',
    'width-shazeer-d-768-with': 'llamaHiddenDim : le d = 768 de Shazeer, avec multipleOf 1',
    'width-d-1000-with-multipleof-1-no': 'llamaHiddenDim : d = 1000 avec multipleOf 1 (sans arrondi)',
    'width-llama-3-8b-d-4096': 'llamaHiddenDim : LLaMA 3 8B : d = 4096, multiplicateur 1,3, multipleOf 1024',
    'width-llama-2-70b-d-8192': 'llamaHiddenDim : LLaMA 2 70B : d = 8192, multiplicateur 1,3, multipleOf 4096',
    'width-multiplier-passed-as-null': 'llamaHiddenDim : multiplicateur passé à null',
    'width-small-d-10-multipleof-8': 'llamaHiddenDim : petit : d = 10, multipleOf 8',
    'width-d-4096-multiplier-1-3':
      'llamaHiddenDim : d = 4096, multiplicateur 1,3, multipleOf 1 (la première partie entière ' +
      'change le résultat)',
    'width-d-3072-multiplier-1-3':
      'llamaHiddenDim : d = 3072, multiplicateur 1,3, multipleOf 1 (la partie entière après le ' +
      'multiplicateur change le résultat)',
    'width-d-3072-8192-is-already-a': 'llamaHiddenDim : d = 3072 : 8192 est déjà un multiple de 256',
    'width-d-3072-multiplier-1-5-12288':
      'llamaHiddenDim : d = 3072, multiplicateur 1,5 : 12288 est déjà un multiple de 256',
  },
};

export const swigluBackward = {
  title: 'Rétropropager à travers SwiGLU',
  level: 'Entretien',
  prompt: `<p>Écrivez <code>swigluBackward(dY, X, Wg, Wu, Wd)</code> pour <code>X</code> et <code>dY</code> de forme
<code>(N, d)</code>, qui renvoie <code>{ dX, dWGate, dWUp, dWDown }</code> avec les formes de <code>X</code>,
<code>Wg</code>, <code>Wu</code> et <code>Wd</code>. Recalculez les intermédiaires de la passe avant :
<code>G = X·Wg</code>, <code>U = X·Wu</code>, <code>A = SiLU(G)</code>, <code>H = A ⊙ U</code>,
<code>Y = H·Wd</code>.</p>
<p>Il vous faut <code>SiLU′(z) = σ(z)·(1 + z·(1 − σ(z)))</code>. N’oubliez pas que <code>X</code> alimente les deux
branches.</p>`,
  hints: [
    'Remontez dans l’ordre inverse : dWDown = Hᵀ·dY, dH = dY·Wdᵀ. Répartissez ensuite dH entre les deux facteurs de ' +
      'H = A ⊙ U (la règle du produit) : chaque facteur reçoit dH multiplié par l’autre facteur.',
    'dU = dH ⊙ A et dG = dH ⊙ U ⊙ SiLU′(G). Puis dWUp = Xᵀ·dU, dWGate = Xᵀ·dG. Le gradient d’un poids est ' +
      '(entrée)ᵀ·(gradient de la sortie), ce qui lui donne la forme du poids lui-même.',
    'dX = dG·Wgᵀ + dU·Wuᵀ : une somme, car X alimente à la fois la porte et la branche montante. SiLU′(z) = s·(1 + ' +
      'z·(1 − s)) avec s = σ(z) ; σ(z)(1 − σ(z)) seul est la dérivée de la sigmoïde, pas celle de SiLU.',
  ],
  examples: [
    'Pour un seul jeton avec d = 2, dFF = 3, le résultat a dX [1,2], dWGate [2,3], dWUp [2,3], dWDown [3,2].',
    'Un dY nul donne des gradients nuls partout.',
  ],
  variants: {
    'backward-dx-missing-up': {
      title: 'Il manque à dX la branche montante',
      message:
        'Votre dX n’a que la branche de porte, dG·Wgᵀ. X alimente aussi la projection montante : ' + 'ajoutez dU·Wuᵀ.',
    },
    'backward-dx-missing-gate': {
      title: 'Il manque à dX la branche de porte',
      message:
        'Votre dX n’a que la branche montante, dU·Wuᵀ. X alimente aussi la projection de porte : ' + 'ajoutez dG·Wgᵀ.',
    },
    'backward-silu-prime-sigma': {
      title: 'SiLU′ écrite σ(1 − σ)',
      message:
        'Vous avez utilisé σ(z)(1 − σ(z)), la dérivée de la sigmoïde. SiLU(z) = z·σ(z), donc ' +
        'SiLU′(z) = σ(z) + z·σ(z)(1 − σ(z)) = σ(z)(1 + z(1 − σ(z))).',
    },
    'backward-product-rule': {
      title: 'L’autre facteur de la règle du produit oublié',
      message:
        'Dans H = A ⊙ U, chaque facteur reçoit dH multiplié par l’autre facteur : dG = dH ⊙ U ⊙ ' +
        'SiLU′(G) et dU = dH ⊙ A. L’une de vos branches oublie son autre facteur.',
    },
    'backward-dw-transposed': {
      title: 'Gradient d’un poids transposé',
      message:
        'Au moins un gradient de poids est transposé. Le gradient d’un poids est (entrée de la ' +
        'couche)ᵀ·(gradient de la sortie) : dWGate = Xᵀ·dG a la forme de Wg, (d, dFF), et dWDown = ' +
        'Hᵀ·dY celle de Wd, (dFF, d).',
    },
  },
  // each hidden test's name, by the test's id
  tests: {
    'bw-one-token-d-4-dff-6': 'swigluBackward : un jeton, d = 4, dFF = 6',
    'bw-3-tokens-d-5-dff-7': 'swigluBackward : 3 jetons, d = 5, dFF = 7',
    'bw-4-tokens-d-8-dff-12': 'swigluBackward : 4 jetons, d = 8, dFF = 12',
    'bw-square-weights-d-dff-4': 'swigluBackward : poids carrés, d = dFF = 4',
    'bw-the-course-text-matched': 'swigluBackward : la largeur appariée du texte du cours, d = 12, dFF = 32',
    'bw-zero-upstream-gradient': 'swigluBackward : gradient amont nul',
    'bw-overflow': 'swigluBackward : portes de ±250 à ±1000 (où e^z et e^-z débordent)',
  },
};

export const memories = {
  title: 'Décomposer un FFN en mémoires',
  level: 'Essentiel',
  prompt: `<p>Lisez un FFN à ReLU sans biais de sortie comme une mémoire clé-valeur : la clé <code>i</code> est la
colonne <code>i</code> de <code>W1</code>, la valeur <code>i</code> est la ligne <code>i</code> de <code>W2</code>, et
la mémoire <code>i</code> s’active avec le coefficient <code>coefᵢ = max(0, x·kᵢ + b1ᵢ)</code>.</p>
<p>Écrivez <code>ffnMemories(x, W1, b1, W2, k)</code> pour un jeton <code>x</code> de forme <code>(d)</code>, qui
renvoie <code>{ coef, top, partial }</code> : <code>coef</code> (forme <code>(dFF)</code>), le coefficient de chaque
mémoire ; <code>top</code>, les indices des <code>k</code> plus grands coefficients, du plus grand au plus petit, les
égalités départagées par le plus petit indice ; <code>partial</code> (forme <code>(d)</code>), la somme des écritures
de ces seules mémoires, <code>Σ_{i∈top} coefᵢ·vᵢ</code>.</p>`,
  hints: [
    'coef est la couche cachée du FFN à ReLU pour un jeton : matmul(x, W1) donne la forme (dFF) ; ajoutez b1 et ' +
      'écrêtez à zéro avec map.',
    'Triez les indices 0..dFF-1 par coefficient, du plus grand au plus petit : range(n).sort((i, j) => coef.data[j] ' +
      '- coef.data[i]). Le tri de JavaScript est stable : à coefficients égaux, le plus petit indice reste devant. ' +
      'Prenez les k premiers.',
    'partial part de zeros([d]) et ajoute coef.data[i] fois row(W2, i) pour chaque i de top seulement, pas pour ' +
      'chaque mémoire.',
  ],
  examples: [
    'Avec les coefficients [0.5, 0, 2, 0.5] et k = 3, top vaut [2, 0, 3] (l’égalité entre 0 et 3 revient au plus ' +
      'petit indice).',
    'Avec k = dFF, partial est la sortie complète du FFN (sans biais de sortie).',
  ],
  variants: {
    'memories-ascending': {
      title: 'Mémoires de top dans l’ordre croissant',
      message:
        'Votre top contient les bonnes mémoires, mais de la plus petite à la plus grande. ' +
        'Listez-les de la plus grande à la plus petite (tri décroissant, ou inversez après le tri).',
    },
    'memories-smallest': {
      title: 'Les k plus petites mémoires',
      message: 'Votre top contient les k plus petits coefficients. Il faut les k plus grands.',
    },
    'memories-no-relu': {
      title: 'Coefficients sans ReLU',
      message:
        'Vos coefficients sont les x·kᵢ + b1ᵢ bruts. Écrêtez-les à zéro : une mémoire dont la clé ' +
        'ne correspond pas n’écrit rien, elle n’écrit pas une quantité négative.',
    },
    'memories-partial-all': {
      title: 'partial somme toutes les mémoires',
      message:
        'Votre partial additionne toutes les mémoires, ce qui donne la sortie complète du FFN. Ne ' +
        'sommez que les k mémoires de top.',
    },
    'memories-ties-high-index': {
      title: 'Égalités départagées par le plus grand indice',
      message:
        'Votre top départage les coefficients égaux par le plus grand indice. Gardez le plus petit ' +
        'indice devant (un tri décroissant stable le fait).',
    },
  },
  // each hidden test's name, by the test's id
  tests: {
    'm-d-4-dff-6-k-2': 'ffnMemories : d = 4, dFF = 6, k = 2',
    'm-d-7-dff-10-k-3': 'ffnMemories : d = 7, dFF = 10, k = 3',
    'm-k-1': 'ffnMemories : k = 1',
    'm-k-dff-every-memory-zeros': 'ffnMemories : k = dFF (toutes les mémoires, zéros compris)',
    'm-k-0-no-memory-top-is-empty': 'ffnMemories : k = 0 (aucune mémoire : top est vide et partial est nul)',
    'm-ties-among-the-largest': 'ffnMemories : ex æquo parmi les plus grands coefficients',
    'm-no-memory-fires-all': 'ffnMemories : aucune mémoire ne s’active (tous les coefficients sont nuls)',
    'm-a-hand-built-three-fact':
      'ffnMemories : une mémoire de trois faits construite à la main (la requête correspond au fait 2)',
  },
  words: { memory: 'mémoire', strongest: 'par force décroissante' },
};

export const gqaBudget = {
  title: 'Où un bloc GQA + SwiGLU range ses poids',
  level: 'Au-delà du cours',
  prompt: `<p>Avec l’attention à requêtes groupées (GQA), les projections de requête et de sortie utilisent les
<code>nHeads</code> têtes de taille <code>dHead</code>, mais les clés et les valeurs n’en utilisent que
<code>nKvHeads</code>. Écrivez <code>gqaBlockCounts(d, nHeads, nKvHeads, dHead, hidden)</code>, qui renvoie
<code>{ attention, ffn, ffnShare }</code> : les poids des projections sans biais de la sous-couche d’attention (W_Q,
W_K, W_V, W_O), ceux d’un FFN SwiGLU de largeur <code>hidden</code>, et la part du FFN dans leur total (un nombre
entre 0 et 1).</p>
<p>Pour d = 4096, 32 têtes, 8 têtes KV, des têtes de taille 128 et hidden = 14 336, cela fait 41 943 040 et
176 160 768 poids, soit une part du FFN d’environ 80,8 %, et non des deux tiers.</p>
<p>Écrivez aussi <code>matchedGatedWidth(m)</code> : la largeur à porte <code>g</code> dont les trois matrices
contiennent autant de poids qu’un FFN à deux matrices de largeur <code>m</code> (renvoyez la valeur exacte, même si ce
n’est pas un nombre entier).</p>`,
  hints: [
    'Comptez chaque projection comme (entrées × sorties). W_Q envoie d vers nHeads·dHead, W_K et W_V envoient ' +
      'chacune d vers nKvHeads·dHead, W_O ramène nHeads·dHead vers d.',
    'Le FFN SwiGLU a trois matrices d × hidden. La part vaut ffn / (attention + ffn), et non ffn / attention, et ' +
      'reste une fraction (0.808, pas 80.8).',
    'Budgets égaux : 2·d·m = 3·d·g, donc g = 2m/3. Ne l’arrondissez pas.',
  ],
  examples: [
    'gqaBlockCounts(4096, 32, 8, 128, 14336)  -> { attention: 41943040, ffn: 176160768, ffnShare: ≈ 0.8077 }',
    'matchedGatedWidth(48)  -> 32',
  ],
  variants: {
    'gqa-kv-as-full-heads': {
      title: 'Têtes KV comptées comme des têtes complètes',
      message:
        'Votre compte d’attention donne à W_K et W_V les nHeads têtes. Avec GQA, elles n’en ont que ' +
        'nKvHeads : d × (nKvHeads·dHead) chacune.',
    },
    'gqa-ffn-two-matrices': {
      title: 'FFN compté avec deux matrices',
      message: 'Votre compte du FFN a deux matrices. SwiGLU en a trois : porte, montée et descente, soit 3·d·hidden.',
    },
    'gqa-share-ratio': {
      title: 'Part calculée comme FFN / attention',
      message:
        'ffnShare doit être la fraction du total qui revient au FFN, ffn / (attention + ffn), et ' +
        'non le rapport ffn / attention.',
    },
    'gqa-share-percent': {
      title: 'Part donnée en pourcentage',
      message: 'ffnShare doit être une fraction entre 0 et 1 (0.808), pas un pourcentage (80.8).',
    },
    'gqa-d-for-heads': {
      title: 'd utilisé à la place de nHeads·dHead',
      message:
        'Vous avez pris d comme largeur de l’attention. La largeur des requêtes et de la sortie est ' +
        'nHeads·dHead, qui n’est pas forcément égale à d (ici 16·256 = 4096 alors que d = 3072).',
    },
    'width-inverted': {
      title: 'Rapport inversé',
      message:
        'Vous avez renvoyé 3m/2. Trois matrices à porte doivent contenir ce que deux matrices ' +
        'classiques contenaient : 3·d·g = 2·d·m, donc g = 2m/3, plus étroit que m.',
    },
    'width-truncated': {
      title: 'Largeur arrondie à un entier',
      message:
        'Vous avez arrondi g. Renvoyez la valeur exacte 2m/3 ; arrondir à un multiple adapté au ' +
        'matériel est une étape à part.',
    },
  },
  // each hidden test's name, by the test's id
  tests: {
    'block-the-course-text-block-d':
      'gqaBlockCounts : le bloc du texte du cours : d = 4096, 32 têtes, 8 têtes KV, têtes de 128, ' +
      'largeur cachée 14336',
    'block-multi-head-llama-7b-32-kv': 'gqaBlockCounts : multi-têtes (LLaMA-7B) : 32 têtes KV, largeur cachée 11008',
    'block-multi-query-d-2048-16-heads':
      'gqaBlockCounts : multi-requêtes : d = 2048, 16 têtes, 1 tête KV, largeur cachée 5632',
    'block-heads-x-head-size-d-d-3072':
      'gqaBlockCounts : têtes × taille de tête ≠ d : d = 3072, 16 têtes de 256, largeur cachée 24576',
    'block-small-d-64-4-heads-2-kv':
      'gqaBlockCounts : petit : d = 64, 4 têtes, 2 têtes KV, têtes de 16, largeur cachée 172',
    'width-gpt-2-small-m-3072': 'matchedGatedWidth : GPT-2 small, m = 3072',
    'width-the-course-text-m-48': 'matchedGatedWidth : le m = 48 du texte du cours',
    'width-m-16384-not-a-multiple-of-3': 'matchedGatedWidth : m = 16384 (pas un multiple de 3)',
    'width-m-100': 'matchedGatedWidth : m = 100',
  },
};

export const valueToVocab = {
  title: 'Lire la valeur d’une mémoire dans le vocabulaire',
  level: 'Cœur',
  prompt: `<p>Geva et al. (2021) lisent une mémoire d’un FFN entraîné en projetant sa valeur, la ligne
<code>i</code> de <code>W2</code>, sur les plongements de sortie : <code>scores = U · W2[i,:]</code>, un score par
objet.</p>
<p>Écrivez <code>valueToVocab(W2, U, i, k)</code> : les indices des <code>k</code> objets aux plus grands scores,
du plus grand au plus petit, les égalités départagées par le plus petit indice.</p>`,
  examples: ['Avec les scores [0.5, 2, -1, 2] et k = 2, la réponse est [1, 3] (l’égalité va au plus petit indice).'],
  hints: [
    'La valeur de la mémoire i est row(W2, i), un vecteur de d nombres ; le score d’un objet est son produit ' +
      'scalaire avec la ligne de U.',
    'Le score de l’objet o est la somme sur j de W2.data[i * d + j] * U.data[o * d + j] : une boucle sur ' +
      'les V objets.',
    'Triez range(V) par score, du plus grand au plus petit : .sort((a, b) => s[b] - s[a]) ; le tri est stable, ' +
      'les égalités gardent donc le plus petit indice. Prenez les k premiers.',
  ],
  variants: {
    'value-column': {
      title: 'Une colonne de W2 au lieu de sa ligne',
      message:
        'La valeur de la mémoire i est la ligne i de W2 (forme (d)), pas la colonne i : W2 est (dFF, d), ' +
        'une ligne par mémoire.',
    },
    'value-ascending': {
      title: 'Les objets qu’elle défavorise le plus',
      message:
        'Votre liste contient les plus petits scores, du plus petit au plus grand. Listez d’abord les plus grands.',
    },
  },
  // each hidden test's name, by the test's id
  tests: {
    'v2v-memory-2': 'valueToVocab : dFF = 6, d = 5, V = 9, mémoire 2, k = 3',
    'v2v-k-1': 'valueToVocab : mémoire 0, k = 1',
    'v2v-k-v': 'valueToVocab : la dernière mémoire, k = V',
    'v2v-d-9': 'valueToVocab : d = 9, V = 13, k = 4',
    'v2v-d-1': 'valueToVocab : une seule dimension : d = 1, V = 5, k = 2',
    'v2v-tie': 'valueToVocab : une égalité entre deux objets',
  },
  words: { object: 'objet', strongest: 'par score décroissant' },
};

export const rankOneEdit = {
  title: 'La modification de rang un de W2 de Meng et al.',
  level: 'Défi',
  prompt: `<p>Meng et al. (2022) réécrivent un fait stocké dans un FFN en changeant <code>W2</code> pour que la clé
du fait <code>k*</code> (son activation cachée) donne désormais une nouvelle valeur <code>v*</code>, en perturbant
le moins possible les autres clés, de covariance <code>C</code>. La forme close est
<code>W2' = W2 + (C⁻¹k*ᵀ)(v* − k*W2) / (k* C⁻¹ k*ᵀ)</code>.</p>
<p>Écrivez <code>rankOneEdit(W2, C, kStar, vStar)</code> qui renvoie <code>W2'</code> (forme
<code>(dFF, d)</code>). <code>C</code> est symétrique définie positive : résolvez <code>C u = k*</code> (élimination
de Gauss ou Cholesky) plutôt que de l’inverser.</p>`,
  examples: ["Après la modification, matmul(kStar, W2') vaut vStar : la clé écrit la nouvelle valeur."],
  hints: [
    'Trois morceaux : u = C⁻¹k* (une résolution linéaire), r = v* − k*W2 (un vecteur de d nombres) et le ' +
      'nombre k*·u.',
    'Résolvez C u = k* par élimination de Gauss : copiez C et k*, pour chaque colonne p éliminez les lignes en ' +
      'dessous, puis remontez depuis la dernière ligne.',
    "Puis W2'[i][j] = W2[i][j] + u[i] * r[j] / (k*·u) pour tous i, j : le produit extérieur de u (pas de k*) " +
      'et de r.',
  ],
  variants: {
    'rank-one-no-inverse': {
      title: 'C⁻¹ oublié',
      message:
        'Votre mise à jour utilise k* là où il faut C⁻¹k*, dans le produit extérieur et au dénominateur : ' +
        'résolvez C u = k*.',
    },
    'rank-one-k-outer': {
      title: 'k* au lieu de C⁻¹k* dans le produit extérieur',
      message:
        'Votre dénominateur est juste, mais le produit extérieur utilise k* : il faut u = C⁻¹k* fois (v* − k*W2).',
    },
    'rank-one-transposed': {
      title: 'La mise à jour transposée',
      message:
        'Votre mise à jour est le produit extérieur dans l’autre sens, (v* − k*W2) fois C⁻¹k*, de forme (d, dFF). ' +
        "W2 est (dFF, d), une ligne par mémoire : W2'[i][j] += u[i] * r[j] / (k*·u), avec u = C⁻¹k*.",
    },
  },
  // each hidden test's name, by the test's id
  tests: {
    'edit-5-3': 'rankOneEdit : dFF = 5, d = 3',
    'edit-9-4': 'rankOneEdit : dFF = 9, d = 4',
    'edit-2-1': 'rankOneEdit : dFF = 2, d = 1',
    'edit-7-6': 'rankOneEdit : dFF = 7, d = 6',
    'edit-square': 'rankOneEdit : une W2 carrée, dFF = d = 5',
    'edit-1-3': 'rankOneEdit : une seule mémoire : dFF = 1, d = 3',
  },
};
