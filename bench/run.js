// `npm run bench` runs this file; the benchmark itself is ES modules.
import('./run.mjs').catch((error) => {
  console.error(error);
  process.exit(1);
});
