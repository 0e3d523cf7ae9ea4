import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { contentProject } from './helpers.ts';

/**
 * Entry data is read by field name as the object's own keys: a field named like an Object.prototype
 * member (`constructor` is a valid kebab-case name) must not find the inherited function when the
 * client leaves it out (issue 14 §4, "look up names as own properties").
 */
describe('field names are own keys of entry data', () => {
  let t: TestApp;
  let c: Awaited<ReturnType<typeof contentProject>>;
  beforeAll(async () => {
    t = await startTestApp();
    c = await contentProject(t);
    await c.collection('protos', [
      { name: 'title', type: 'text' },
      { name: 'constructor', type: 'text' },
    ]);
  });
  afterAll(() => t?.close());

  it('a create that leaves out a field named constructor stores and shows no value for it', async () => {
    const created = await c.create('protos', { data: { title: 'a' } });
    expect(created.status, created.text).toBe(201);
    expect(created.body.fields).toEqual({ title: 'a', constructor: null });
    const replaced = await c.put('protos', created.body.uuid, { data: { title: 'b' } });
    expect(replaced.status, replaced.text).toBe(200);
    expect(replaced.body.fields).toEqual({ title: 'b', constructor: null });
    const set = await c.patch('protos', created.body.uuid, { data: { constructor: 'x' } });
    expect(set.body.fields).toEqual({ title: 'b', constructor: 'x' });
    const sorted = await c.list('protos', '?state=draft&sort=constructor:desc');
    expect(sorted.status, sorted.text).toBe(200);
  });
});
