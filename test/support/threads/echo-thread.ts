// A module started by startModuleThread in module-thread.int.spec.ts: TypeScript, importing another
// module of the build without an extension (the require hook resolves `.ts` files).
import { parentPort, workerData } from 'node:worker_threads';
import { sha256Hex } from '../../../src/platform/security/crypto';

const { data } = workerData as { data: { text: string } };
parentPort!.postMessage({ echoed: data.text, digest: sha256Hex(data.text) });
