// ffn-lab/components: registers <ffn-memory-widget>, <ffn-activation-plot>, <ffn-param-calculator> and
// <ffn-memory-lab>, and exports their models.
export { FfnMemoryWidget } from './memory-widget.js';
export { FfnActivationPlot } from './activation-plot.js';
export { FfnParamCalculator } from './param-calculator.js';
export { FfnMemoryLab } from './memory-lab/index.js';
export * as memoryModel from './memory-model.js';
export * as activationModel from './activation-model.js';
export * as paramModel from './param-model.js';
export * as labModel from './memory-lab/model.js';
export * as labFacts from './memory-lab/facts.js';
export { defineStrings, getStrings, loadStrings } from '../i18n/index.js';
