import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * The request side and the processing side are read most when following a message: no function there runs
 * past 80 lines, so each fits on a screen and says one thing. Nested functions count on their own.
 */
const FOLDERS = ['src/http', 'src/processing', 'src/workers'];
const MAX_LINES = 80;
const root = new URL('../../', import.meta.url).pathname;

function sourceFiles(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Every function-like node of a file with its length in lines, named by where it stands. */
export function longFunctions(path: string, maxLines: number): string[] {
  const text = readFileSync(join(root, path), 'utf8');
  const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const start = file.getLineAndCharacterOfPosition(node.getStart(file)).line;
      const end = file.getLineAndCharacterOfPosition(node.getEnd()).line;
      const lines = end - start + 1;
      if (lines > maxLines) found.push(`${relative(root, join(root, path))}:${start + 1} ${nameOf(node)} (${lines} lines)`);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

function nameOf(node: ts.Node): string {
  const named = node as { name?: ts.Node };
  if (named.name && ts.isIdentifier(named.name)) return named.name.text;
  const parent = node.parent;
  if (parent && ts.isVariableDeclaration(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  if (parent && ts.isPropertyAssignment(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  if (parent && ts.isCallExpression(parent)) return `callback of ${parent.expression.getText().slice(0, 40)}`;
  return '(anonymous)';
}

describe('functions stay short where a message passes', () => {
  it(`given src/http, src/processing and src/workers, then no function is over ${MAX_LINES} lines`, () => {
    const long = FOLDERS.flatMap(sourceFiles).flatMap((path) => longFunctions(path, MAX_LINES));
    expect(long, `split these by responsibility:\n${long.join('\n')}`).toEqual([]);
  });

  it('given a function of 81 lines, then it is reported', () => {
    const body = Array.from({ length: 79 }, (_, i) => `  const v${i} = ${i};`).join('\n');
    const file = ts.createSourceFile('x.ts', `function tooLong() {\n${body}\n}\n`, ts.ScriptTarget.Latest, true);
    const fn = file.statements[0]!;
    const lines = file.getLineAndCharacterOfPosition(fn.getEnd()).line - file.getLineAndCharacterOfPosition(fn.getStart(file)).line + 1;
    expect(lines).toBe(81);
  });
});
