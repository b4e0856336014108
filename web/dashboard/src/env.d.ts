// Minimal typing for Vite's import.meta.env, so the code also type-checks under the
// repository's root tsconfig (which does not load vite/client types).
interface ImportMetaEnv {
  readonly VITE_API_BASE?: string;
  readonly DEV: boolean;
}

interface ImportMeta {
  readonly env: ImportMetaEnv;
}
