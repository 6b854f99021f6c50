// ffn-lab/components: registers <ffn-memory-widget>, <ffn-activation-plot> and <ffn-param-calculator>, and exports
// their models.
export { FfnMemoryWidget } from './memory-widget.js';
export { FfnActivationPlot } from './activation-plot.js';
export { FfnParamCalculator } from './param-calculator.js';
export * as memoryModel from './memory-model.js';
export * as activationModel from './activation-model.js';
export * as paramModel from './param-model.js';
export { defineStrings, getStrings, loadStrings } from '../i18n/index.js';
