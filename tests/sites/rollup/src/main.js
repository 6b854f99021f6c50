// The site's entry module.
import 'ffn-lab/components'; // <ffn-memory-widget>, <ffn-activation-plot>, <ffn-param-calculator>
import 'ffn-lab/sandbox'; // <ffn-exercise>
