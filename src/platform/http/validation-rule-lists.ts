import { getMetadataStorage } from 'class-validator';

type Storage = ReturnType<typeof getMetadataStorage>;
type RuleList = ReturnType<Storage['getTargetValidationMetadatas']>;

const KEPT = Symbol('validation rule lists kept');

/**
 * class-validator builds a class's list of rules again on every validate() of every object and nested
 * object: it walks the rules of every class it knows (an `instanceof` per class for inherited ones),
 * then filters and concatenates. A batch create of 100 contacts validates 100 nested inputs, and that
 * rebuilding was the largest single source of its allocations (12 % in a sampling heap profile,
 * docs/records.md). Rules change only when a class is declared or a decorator registered, so each list
 * is kept per class and options and all are forgotten whenever a rule is added. Kept lists are frozen:
 * class-validator and array-bounds.ts only read them, and a caller that wrote to one would throw
 * rather than change every later validation.
 */
export function keepValidationRuleLists(storage: Storage = getMetadataStorage()): void {
  const marked = storage as Storage & { [KEPT]?: true };
  if (marked[KEPT]) return;
  marked[KEPT] = true;
  const build = storage.getTargetValidationMetadatas.bind(storage);
  const add = storage.addValidationMetadata.bind(storage);
  let kept = new Map<unknown, Map<string, RuleList>>();
  storage.addValidationMetadata = (metadata) => {
    kept = new Map();
    add(metadata);
  };
  storage.getTargetValidationMetadatas = (target, schema, always, strictGroups, groups) => {
    const options = `${schema}\u0000${always}\u0000${strictGroups}\u0000${groups?.join('\u0001') ?? '\u0002'}`;
    let byOptions = kept.get(target);
    if (!byOptions) kept.set(target, (byOptions = new Map()));
    let list = byOptions.get(options);
    if (!list)
      byOptions.set(options, (list = Object.freeze(build(target, schema, always, strictGroups, groups)) as RuleList));
    return list;
  };
}
