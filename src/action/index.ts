// The action's entry point (dist/index.js): everything happens in run(), which never throws.
import { run } from './main.js';

void run();
