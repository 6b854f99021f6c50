// The memory lab's training worker: the trainer's full-batch steps off the page's main thread (driver.js talks to it).
import * as ffn from '../../ffn.js'; // the kernels by URL (ffn.wasm, most likely in the cache already)
import { editSteps, finish } from './session.js';
import { readModel } from './model.js';

let model = null;
let ed = null; // what editSteps works on: { ffn, model, trained, reading() }; trained from an edit to training
let run = 0; // the current run's number: a pause or a new order ends the one before
const post = (m, transfer) => self.postMessage(m, transfer ?? []);
// Let a pause in between two steps: a task of our own through a MessageChannel (setTimeout(0) waits >= 4 ms once
// nested, 0.2 s over the default lab's 48 steps).
const channel = new MessageChannel();
const resumes = [];
channel.port1.onmessage = () => resumes.shift()?.();
const breathe = () =>
  new Promise((ok) => {
    resumes.push(ok);
    channel.port2.postMessage(0);
  });

/**
 * The learnt weights, copied out, and every fact's keys under them (A (N, dff), the page's reading of the facts:
 * computed here, not in a main-thread task), all transferred.
 */
function weightsMessage(m) {
  const { W1, b1, W2 } = m.copyWeights();
  const keys = m.keys();
  const transfer = [W1.buffer, b1.buffer, W2.buffer, keys.buffer];
  return { type: 'weights', step: m.step, w: { W1, b1, W2 }, keys, transfer };
}

/** Steps until `until`, maxSteps, a non-finite loss, every fact stored (stopWhenStored) or a pause. */
async function train({ gen, until, maxSteps, stopWhenStored }) {
  const mine = ++run;
  if (ed.trained) model.restore(ed.trained.snap); // training after an edit goes on from the trained weights
  ed.trained = null;
  for (let n = 0; n < maxSteps && mine === run; n++) {
    const r = model.train(1);
    post({ type: 'step', gen, r });
    if (!r.finite || r.step >= until || (stopWhenStored && r.correct === model.nFacts)) break;
    await breathe();
  }
  const m = weightsMessage(model);
  post({ type: 'stopped', gen, step: m.step, w: m.w, keys: m.keys }, m.transfer);
}

/**
 * An edit of the trained weights (the page's LabSession.edit, here): its predictions before and after, the weights
 * after and their keys, transferred; the page keeps the trained weights for Undo.
 */
function edit({ gen, no, method, f, newObject }) {
  const r = finish(editSteps(ed, method, f, newObject));
  const m = weightsMessage(model);
  const before = ed.trained.before.slice();
  const msg = {
    type: 'edited',
    gen,
    no,
    method,
    f,
    newObject,
    before,
    after: r.after,
    steps: r.steps,
    w: m.w,
    keys: m.keys,
  };
  post(msg, [...m.transfer, before.buffer, r.after.buffer]);
}

/** The capacity measurement: for each size a fresh model trained `steps` steps; a point per size. */
async function capacity({ opts, sizes, steps }) {
  const mine = ++run;
  for (const dff of sizes) {
    const m = ffn.createMemoryModel({ ...opts, dff });
    try {
      let r;
      do {
        r = m.train(1);
        await breathe();
      } while (r.finite && r.step < steps && mine === run);
      if (mine !== run) return;
      post({ type: 'point', point: { dff, stored: r.finite ? m.evaluate().correct : 0, n: m.nFacts } });
    } finally {
      m.dispose();
    }
  }
  if (mine === run) post({ type: 'measured' });
}

self.onmessage = async ({ data: m }) => {
  try {
    if (m.type === 'init') {
      await ffn.ready();
      model?.dispose();
      model = ffn.createMemoryModel(m.opts);
      model.warmUp(); // the first step's scratch written now, before the learner's Train (this is not the page)
      ed = { ffn, model, trained: null, reading: () => readModel(model, m.opts.facts) };
      post({ type: 'ready' });
    } else if (m.type === 'train') await train(m);
    else if (m.type === 'pause') run++;
    else if (m.type === 'reset') {
      run++;
      ed.trained = null;
      model.reset(m.seed);
    } else if (m.type === 'edit') edit(m);
    else if (m.type === 'capacity') await capacity(m);
  } catch (err) {
    post({ type: 'error', message: String(err?.message ?? err) });
  }
};
