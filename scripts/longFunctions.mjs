#!/usr/bin/env node
// Functions longer than a limit, longest first: `node scripts/longFunctions.mjs [folder=src] [maxLines=80]`.
// Counts every function declaration, method, function expression and arrow function, from its first line to
// its last; a function nested in a long one is listed on its own too. Prints `path:line name lines`.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

const [folder = 'src', maxArg = '80'] = process.argv.slice(2);
const maxLines = Number(maxArg);

function sourceFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourceFiles(path);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

function nameOf(node) {
  if (node.name) return node.name.getText();
  const parent = node.parent;
  if (parent && (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent))) return parent.name.getText();
  if (parent && ts.isCallExpression(parent)) return `<callback of ${parent.expression.getText().slice(0, 40)}>`;
  if (parent && ts.isReturnStatement(parent)) return '<returned function>';
  return '<anonymous>';
}

const found = [];
for (const path of sourceFiles(folder)) {
  const source = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
  const visit = (node) => {
    if (ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node) || ts.isFunctionExpression(node) || ts.isArrowFunction(node)) {
      const first = source.getLineAndCharacterOfPosition(node.getStart()).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      if (last - first + 1 > maxLines) found.push({ at: `${path}:${first + 1}`, name: nameOf(node), lines: last - first + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
}
found.sort((a, b) => b.lines - a.lines);
for (const f of found) console.log(`${f.at} ${f.name} ${f.lines}`);
console.log(`${found.length} function(s) over ${maxLines} lines in ${folder}`);
