// V8 heap settings of the service, in one place: `npm start` (scripts/start.mjs), `npm run
// start:prod`, the container (docker/Dockerfile's NODE_OPTIONS) and the bench run it with these;
// test/unit/heap-options.unit.spec.ts checks that package.json and the Dockerfile say the same.
// Without them V8 sizes the old space from the host's memory (gigabytes on a big host) and the
// service's RSS grows far past what it holds live; see docs/benchmarks.md ("What the RSS is").
export const HEAP_OPTIONS = ['--max-old-space-size=384'];
