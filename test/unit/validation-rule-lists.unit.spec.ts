import 'reflect-metadata';
import { getMetadataStorage, IsDefined, IsString, validateSync } from 'class-validator';
import { keepValidationRuleLists } from '../../src/platform/http/validation-rule-lists';

/**
 * class-validator's rule lists kept per class (validation-rule-lists.ts): the same answers as
 * building them each time, a rule added later is seen by the next validation, and a kept list
 * cannot be written to.
 */
class Person {
  @IsString() name!: unknown;
  nickname?: unknown;
}

class Employee extends Person {
  @IsString() team!: unknown;
}

const propertiesInError = (o: object) =>
  validateSync(o, { forbidUnknownValues: true })
    .map((e) => e.property)
    .sort();

beforeAll(() => keepValidationRuleLists());

it('answers as class-validator does, inherited rules included, and keeps one list per class and options', () => {
  const storage = getMetadataStorage();
  expect(propertiesInError(Object.assign(new Employee(), { name: 1, team: 2 }))).toEqual(['name', 'team']);
  expect(propertiesInError(Object.assign(new Employee(), { name: 'a', team: 'b' }))).toEqual([]);
  const first = storage.getTargetValidationMetadatas(Employee, '', false, false);
  expect(storage.getTargetValidationMetadatas(Employee, '', false, false)).toBe(first);
  expect(first.map((m) => m.propertyName).sort()).toEqual(['name', 'team']);
  // Other options, another list.
  expect(storage.getTargetValidationMetadatas(Employee, '', false, false, ['g'])).not.toBe(first);
});

it('sees a rule added after a class was validated', () => {
  const nickless = Object.assign(new Person(), { name: 'Ada' });
  expect(propertiesInError(nickless)).toEqual([]);
  IsDefined()(Person.prototype, 'nickname');
  expect(propertiesInError(nickless)).toEqual(['nickname']);
  // Inherited by the subclass's list too.
  expect(propertiesInError(Object.assign(new Employee(), { name: 'a', team: 'b' }))).toEqual(['nickname']);
});

it('hands out lists that cannot be written to', () => {
  const list = getMetadataStorage().getTargetValidationMetadatas(Person, '', false, false);
  expect(() => (list as unknown[]).push({})).toThrow(TypeError);
});

it('is installed once, however often it is called', () => {
  const storage = getMetadataStorage();
  const installed = storage.getTargetValidationMetadatas;
  keepValidationRuleLists();
  expect(storage.getTargetValidationMetadatas).toBe(installed);
});
