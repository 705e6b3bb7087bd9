// V8 heap settings of the service, in one place: `npm start`, `npm run start:prod` (package.json),
// the container (docker/Dockerfile's NODE_OPTIONS) and the bench run it with these;
// test/unit/heap-options.unit.spec.ts checks that package.json and the Dockerfile say the same.
// - young generation: V8 sizes its semi-spaces from the host's memory (64 MiB each on a 24 GiB host,
//   a 128 MiB new space of which a request-serving process uses a few MiB between scavenges); 16 MiB
//   took the service's RSS under load from about 290 to 205 MiB (docs/benchmarks.md), 8 MiB (a 16 MiB
//   new space) with the 8 + 4 MiB stream cache and live tail of src/platform/config kept the peak of
//   every bench load scenario under 256 MiB, scavenges twice as often but no slower answers (issue 29);
// - old space: without a cap V8 sizes it from the host's memory too and lets garbage pile up for
//   gigabytes before a full collection; 384 MiB holds the live objects and the byte-bounded caches.
export const HEAP_OPTIONS = ['--max-semi-space-size=8', '--max-old-space-size=384'];
