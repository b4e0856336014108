import { describe, expect, it } from 'vitest';
import { agentDefaults, type AgentConfig, type AgentEvent } from '../../../../src/domain/agents/events.js';
import { agentVersionConfigs, diffConfigs, diffLines } from '../../../../src/domain/agents/versions.js';

const A1 = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
const C1 = 'cccccccc-cccc-4ccc-8ccc-cccccccccccc';
const T0 = '2026-01-01T00:00:00.000Z';
const { active: _a, ...v1 } = agentDefaults;

describe('agent version history', () => {
  it('version 1 is the configuration before any saved version, old in-place edits included; later versions are as saved', () => {
    const v2: AgentConfig = { ...v1, systemPrompt: 'Second.' };
    const events: AgentEvent[] = [
      { type: 'AgentCreated', data: { agentId: A1, companyId: C1, name: 'Bot', ...agentDefaults, at: T0 } },
      { type: 'AgentUpdated', data: { changes: { temperature: 1.1 }, at: T0 } },
      { type: 'AgentVersionSaved', data: { version: 2, basedOn: 1, config: v2, changed: ['systemPrompt'], by: null, at: T0 } },
      { type: 'AgentUpdated', data: { changes: { name: 'Renamed' }, at: T0 } },
    ];
    const versions = agentVersionConfigs(events);
    expect([...versions.keys()]).toEqual([1, 2]);
    expect(versions.get(1)).toEqual({ ...v1, temperature: 1.1 });
    expect(versions.get(2)).toEqual(v2);
  });
});

describe('version diff', () => {
  it('compares every versioned field and says which changed', () => {
    const { fields } = diffConfigs(v1, { ...v1, temperature: 0.9, model: 'gpt-4o-mini' });
    expect(fields.filter((f) => f.changed)).toEqual([
      { field: 'model', from: null, to: 'gpt-4o-mini', changed: true },
      { field: 'temperature', from: 0.3, to: 0.9, changed: true },
    ]);
    expect(fields.map((f) => f.field).sort()).toEqual(['actionIds', 'afterHoursMessage', 'answerThreshold', 'generalAnswers', 'handBackAfterMinutes', 'handoffMessage', 'model', 'systemPrompt', 'temperature', 'useKnowledgeBase']);
  });

  it('diffs the prompt line by line', () => {
    expect(diffLines('Be kind.\nBe brief.\nSign as Ava.', 'Be kind.\nBe very brief.\nSign as Ava.\nNever guess.')).toEqual([
      { op: 'equal', line: 'Be kind.' },
      { op: 'removed', line: 'Be brief.' },
      { op: 'added', line: 'Be very brief.' },
      { op: 'equal', line: 'Sign as Ava.' },
      { op: 'added', line: 'Never guess.' },
    ]);
    expect(diffLines('same', 'same')).toEqual([{ op: 'equal', line: 'same' }]);
  });

  it('attack: two maximal prompts (20,000 characters, one line each character) diff fast, in bounded memory, and still a true diff', () => {
    const a = 'x\n'.repeat(10_000);
    const b = 'y\n'.repeat(10_000);
    const started = performance.now();
    const diff = diffLines(a, b);
    expect(performance.now() - started).toBeLessThan(250);
    // Reading the diff's left side gives the old prompt, its right side the new one.
    expect(diff.filter((d) => d.op !== 'added').map((d) => d.line).join('\n')).toBe(a);
    expect(diff.filter((d) => d.op !== 'removed').map((d) => d.line).join('\n')).toBe(b);
  });

  it('attack: a maximal prompt with two lines changed far apart diffs fast and shows only those lines changed', () => {
    const lines = Array.from({ length: 5_000 }, (_, i) => `l${i}`);
    const a = lines.join('\n');
    const edited = [...lines];
    edited[10] = 'changed early';
    edited[4_990] = 'changed late';
    const started = performance.now();
    const diff = diffLines(a, edited.join('\n'));
    expect(performance.now() - started).toBeLessThan(250);
    expect(diff.filter((d) => d.op !== 'equal')).toEqual([
      { op: 'removed', line: 'l10' },
      { op: 'added', line: 'changed early' },
      { op: 'removed', line: 'l4990' },
      { op: 'added', line: 'changed late' },
    ]);
  });
});

