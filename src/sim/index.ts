// Process entry of the simulator (dist/sim.js): `node dist/sim.js --port 0 --config-json '{...}'`.
import { runSimCli } from './launch.js';

process.exit(await runSimCli(process.argv.slice(2)));
