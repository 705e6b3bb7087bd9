/**
 * The environment for a process a test spawns: this process's, without the variables that point
 * the test run itself somewhere (EVENTSTORE_CONNECTION_STRING runs the contract against a server;
 * the services a test starts use their own DATA_DIR unless the test hands one in).
 */
export function childEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.EVENTSTORE_CONNECTION_STRING;
  return { ...env, ...extra };
}
