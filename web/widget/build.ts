/**
 * Bundles the embeddable chat widget into dist/widget/widget.js (minified IIFE, ES2020).
 *   tsx web/widget/build.ts              build once, print sizes, fail above the size budget
 *   tsx web/widget/build.ts --watch      rebuild on change
 *   tsx web/widget/build.ts --sourcemap  also write widget.js.map
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build, context, type BuildOptions } from 'esbuild';

const BUDGET_GZIP_BYTES = 30 * 1024;

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const widgetOutfile = join(root, 'dist', 'widget', 'widget.js');

const args = new Set(process.argv.slice(2));

const options: BuildOptions = {
  entryPoints: [join(here, 'src', 'main.ts')],
  outfile: widgetOutfile,
  bundle: true,
  format: 'iife',
  platform: 'browser',
  target: 'es2020',
  minify: true,
  legalComments: 'none',
  sourcemap: args.has('--sourcemap'),
  tsconfig: join(here, 'tsconfig.json'),
  logLevel: 'warning',
};

function report(): number {
  const code = readFileSync(widgetOutfile);
  const gz = gzipSync(code, { level: 9 }).length;
  console.log(
    `${relative(root, widgetOutfile)}: ${(code.length / 1024).toFixed(1)} KB, ${(gz / 1024).toFixed(1)} KB gzipped` +
      ` (budget ${BUDGET_GZIP_BYTES / 1024} KB)`,
  );
  return gz;
}

mkdirSync(dirname(widgetOutfile), { recursive: true });
if (args.has('--watch')) {
  const ctx = await context({
    ...options,
    plugins: [{ name: 'size', setup: (b) => b.onEnd((r) => void (r.errors.length === 0 && report())) }],
  });
  await ctx.watch();
  console.log('watching web/widget/src …');
} else {
  await build(options);
  if (report() > BUDGET_GZIP_BYTES) {
    console.error('widget.js is over its size budget');
    process.exitCode = 1;
  }
}
