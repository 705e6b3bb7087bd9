/**
 * Start-up stops here, for a reason a person can fix: `message` is the one sentence printed (no
 * stack trace, exit status 1). Thrown before any file of DATA_DIR is changed.
 */
export class StartupRefusal extends Error {
  constructor(sentence: string) {
    super(sentence);
    this.name = 'StartupRefusal';
  }
}
