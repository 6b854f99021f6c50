// Type-level use of ffn-lab/components, checked by tsc in tests/core/types.test.js.
import * as ffn from 'ffn-lab';
import {
  memoryModel,
  activationModel,
  paramModel,
  FfnMemoryWidget,
  FfnActivationPlot,
  FfnParamCalculator,
} from 'ffn-lab/components';
void ffn.ready();
const mem = memoryModel.buildMemory(memoryModel.parseFacts('Tokyo>Japan, Paris>France@1.2'));
const firstKey: string = mem.keyTokens[0].name;
const w1: Float32Array = mem.W1.data;
const r = memoryModel.compute(ffn, mem, { x: 0, y: 1, k: 2, activation: 'gelu' });
const token: string | null = r.decoded.token;
const coef: Float32Array = r.coef;
const p = paramModel.computeBlock(ffn, paramModel.PRESETS.llama7b);
const dff: number = p.dff;
const min = activationModel.findMinimum(ffn, 'gelu');
const w = document.createElement('ffn-memory-widget');
const q: [number, number] = w.query;
w.selectToken('Tokyo', { animate: false });
w.activation = 'silu';
const plot = document.querySelector('ffn-activation-plot');
const x: number | undefined = plot?.readout?.x;
const calc = document.createElement('ffn-param-calculator');
calc.applyPreset('llama3_8b');
const ok: boolean =
  w instanceof FfnMemoryWidget && calc instanceof FfnParamCalculator && plot instanceof FfnActivationPlot;
// @ts-expect-error: not an activation of the widget
w.activation = 'tanh';
w.token = 'Paris'; // every attribute has its property (issue 28)
const onToken: string | null = w.token;
calc.dff = 4096;
const kvHeads: number = calc.kvHeads;
plot?.setAttribute('range', '-2,2');
const shown: string[] = plot?.curves ?? [];
calc.presets = [{ id: 'mine', label: 'My model', d: 2048, dff: 8192, heads: 16, kvHeads: 4, gated: true }];
calc.applyPreset('mine');
const presetLabel: string = calc.presets[0].label;
// @ts-expect-error: a preset id is a string
calc.applyPreset(7);
const checked = paramModel.validateConfig({ d: 64, heads: 4, kvHeads: 4 });
const maxD: number = paramModel.LIMITS.d + checked.d;
const t8: number = memoryModel.defaultThreshold(8);
const state: 'fires' | 'leaks' | 'silent' = r.states[0];
const rank: number = r.rank[0] + (r.writes ? 1 : 0);
const hashQuery: [number, number] | undefined = memoryModel.parseHashState('q:0,1;a:gelu').state.query;
const [lo, hi] = activationModel.parseRange('-2,2');
const ticks: number[] = activationModel.niceTicks(lo, hi).values;
console.log(token, coef, dff, min.x, q, x, ok, firstKey, w1, presetLabel, maxD, t8, state, rank, hashQuery, ticks);
console.log(onToken, kvHeads, shown);
// the interface language: a page's table, in part, as an object or JSON
import { defineStrings, getStrings, type StringsTable } from 'ffn-lab/components';
const mine: StringsTable = {
  memory: { title: 'Mein FFN', leaksWrite: { one: '{n} Erinnerung', other: '{n} Erinnerungen' } },
};
defineStrings('de', mine);
defineStrings('de', JSON.stringify(mine));
const runLabel = getStrings('fr').exercise?.run;
// @ts-expect-error: the language is a tag (a string)
defineStrings(7, mine);
