// The memory lab's controls: translate the reader's input (buttons, fields, lists, keys) into the element's calls.

/** The training controls: Train/Pause, one step, Reset, the seed and d_ff fields. */
export function wireTraining(el, p) {
  p.train.addEventListener('click', () => (el.training ? el.pause() : el.train()));
  p.step.addEventListener('click', () => el.step());
  p.reset.addEventListener('click', () => el.reset());
  p.seed.addEventListener('change', () => {
    const v = p.seed.value.trim();
    if (/^\d{1,10}$/.test(v))
      el.setAttribute('seed', v); // the parser bounds it and says so when refused
    else p.seed.value = String(el.seed);
  });
  p.dff.addEventListener('change', () => el.setAttribute('d-ff', p.dff.value));
}

/** The fact finder: typing filters the list; Enter takes the first match; arrow down goes into the list. */
export function wireInspect(el, p) {
  p.search.addEventListener('input', () => el._filter(p.search.value));
  p.search.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && p.list.options.length) {
      e.preventDefault();
      el._pick(Number(p.list.options[0].value));
    } else if (e.key === 'ArrowDown' && p.list.options.length) {
      e.preventDefault();
      p.list.focus();
      if (p.list.selectedIndex < 0) p.list.selectedIndex = 0;
      el._pick(Number(p.list.value));
    }
  });
  const pick = () => p.list.value !== '' && el._pick(Number(p.list.value));
  p.list.addEventListener('change', pick);
  p.list.addEventListener('keydown', (e) => {
    if (e.key === 'Enter') pick();
  });
  p.reading.addEventListener('click', (e) => {
    const b = e.target.closest?.('button[data-memory]');
    if (b) el.setAttribute('memory', b.getAttribute('data-memory'));
  });
}

/** Capacity's measure button, and the edit's methods and Undo. */
export function wireEdit(el, cap, ed) {
  cap.measure.addEventListener('click', () => (el._measuring ? el.stopMeasure() : el.measure()));
  ed.rankOne.addEventListener('click', () => el.edit('rankOne'));
  ed.fineTune.addEventListener('click', () => el.edit('fineTune'));
  ed.undo.addEventListener('click', () => el.undo());
}
