import { useState, type FormEvent } from 'react';
import { describeError } from '../api/client.js';
import { getLlmConfig, saveLlmConfig, testLlmConfig } from '../api/endpoints.js';
import type { LlmConfig, LlmConfigInput, LlmProvider } from '../api/types.js';
import { useToast } from '../components/Toasts.js';
import { UnsavedChangesGuard } from '../components/UnsavedChangesGuard.js';
import { Button, ErrorState, InlineError, PageHeader, SetBadge, Skeleton, TextField } from '../components/ui.js';
import { t } from '../lib/messages.js';
import { useAsync } from '../lib/useAsync.js';

/** Loopback, private and local names: what the server refuses unless ALLOW_PRIVATE_PLATFORM_URLS is set. */
function isLocalAddress(url: string): boolean {
  let host: string;
  try {
    host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  } catch {
    return false;
  }
  return /^(localhost|.+\.localhost|.+\.local|127\.\d+\.\d+\.\d+|10\.\d+\.\d+\.\d+|192\.168\.\d+\.\d+|172\.(1[6-9]|2\d|3[01])\.\d+\.\d+|::1|host\.docker\.internal)$/i.test(host);
}

const BASE_URL_PRESETS = [
  { label: 'OpenAI (https://api.openai.com/v1)', url: 'https://api.openai.com/v1' },
  { label: 'Ollama (http://localhost:11434/v1)', url: 'http://localhost:11434/v1' },
];

export function LlmSettingsPage() {
  const config = useAsync((signal) => getLlmConfig({ signal }), []);
  return (
    <>
      <PageHeader title="LLM settings" description="The language model your agents use to write replies." />
      {config.loading && !config.data ? (
        <div className="card">
          <Skeleton rows={5} />
        </div>
      ) : config.error && !config.data ? (
        <ErrorState error={config.error} onRetry={config.reload} title="Could not load the LLM settings" />
      ) : config.data ? (
        <LlmForm key={JSON.stringify(config.data)} config={config.data} onSaved={(next) => config.setData(next)} />
      ) : null}
    </>
  );
}

type TestResult = { ok: true; model?: string } | { ok: false; message: string };

function LlmForm({ config, onSaved }: { config: LlmConfig; onSaved: (config: LlmConfig) => void }) {
  const toast = useToast();
  const [provider, setProvider] = useState<LlmProvider>(config.provider);
  const [baseUrl, setBaseUrl] = useState(config.baseUrl ?? '');
  const [model, setModel] = useState(config.model ?? '');
  const [apiKey, setApiKey] = useState('');
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [testing, setTesting] = useState(false);
  const [test, setTest] = useState<TestResult | null>(null);

  const dirty = provider !== config.provider || baseUrl !== (config.baseUrl ?? '') || model !== (config.model ?? '') || apiKey !== '';

  /** What the form holds, as PUT (and the test) take it: a blank key field means "keep the stored key". */
  function formInput(): LlmConfigInput {
    const input: LlmConfigInput = { provider };
    if (provider === 'openai') {
      if (baseUrl.trim()) input.baseUrl = baseUrl.trim();
      if (model.trim()) input.model = model.trim();
      if (apiKey) input.apiKey = apiKey;
    }
    return input;
  }
  // The stored key is only ever sent to the stored address (the server enforces it): say so before the test fails.
  const keyStaysBehind = provider === 'openai' && !apiKey && config.hasApiKey && baseUrl.trim() !== (config.baseUrl ?? '');

  async function onSubmit(event: FormEvent) {
    event.preventDefault();
    setSaving(true);
    setError(null);
    const input = formInput();
    try {
      const saved = await saveLlmConfig(input);
      toast.success('LLM settings saved');
      setTest(null);
      setApiKey('');
      setSaving(false);
      onSaved(saved);
    } catch (err) {
      setError(err);
      setSaving(false);
    }
  }

  async function runTest() {
    setError(null);
    setTesting(true);
    setTest(null);
    try {
      const result = await testLlmConfig(formInput());
      // The server answers 200 only with `ok: true`; a failed test is an error body (502), caught below.
      setTest({ ok: true, model: result.model });
    } catch (err) {
      setTest({ ok: false, message: describeError(err) });
    } finally {
      setTesting(false);
    }
  }

  return (
    <form className="card form form-card" onSubmit={onSubmit}>
      <fieldset className="fieldset radio-cards">
        <legend>Provider</legend>
        <label className={`radio-card${provider === 'builtin' ? ' checked' : ''}`}>
          <input type="radio" name="provider" value="builtin" checked={provider === 'builtin'} onChange={() => setProvider('builtin')} />
          <span>
            <strong>Builtin</strong>
            <span className="muted small">Free. Answers with the best-matching knowledge base passage, or the agent’s handoff message.</span>
          </span>
        </label>
        <label className={`radio-card${provider === 'openai' ? ' checked' : ''}`}>
          <input type="radio" name="provider" value="openai" checked={provider === 'openai'} onChange={() => setProvider('openai')} />
          <span>
            <strong>OpenAI-compatible</strong>
            <span className="muted small">OpenAI, Ollama, vLLM or any Chat Completions API. Replies are charged from your credits.</span>
          </span>
        </label>
      </fieldset>

      {provider === 'openai' && (
        <>
          <TextField
            label="Base URL"
            type="url"
            value={baseUrl}
            onValueChange={setBaseUrl}
            placeholder="https://api.openai.com/v1"
            hint="The address of the Chat Completions API, ending in /v1."
          />
          <div className="preset-row" role="group" aria-label="Known providers">
            {BASE_URL_PRESETS.map((preset) => (
              <Button key={preset.url} size="sm" variant={baseUrl === preset.url ? 'primary' : 'secondary'} aria-pressed={baseUrl === preset.url} onClick={() => setBaseUrl(preset.url)}>
                {preset.label}
              </Button>
            ))}
          </div>
          {isLocalAddress(baseUrl) && (
            <p className="notice notice-info small" data-testid="llm-local-address-note">
              A local address, like Ollama on this machine, works only when the service was started with{' '}
              <code className="code-inline">ALLOW_PRIVATE_PLATFORM_URLS=true</code>: loopback and private addresses are refused by default, so that no
              company can reach the server’s own network. Set it for a trial on your own machine; in production give the model server an https address.
            </p>
          )}
          <TextField label="Model" value={model} onValueChange={setModel} placeholder="e.g. gpt-4o-mini or llama3.1" />
          <TextField
            label="API key"
            type="password"
            autoComplete="off"
            value={apiKey}
            onValueChange={setApiKey}
            aside={<SetBadge set={config.hasApiKey} />}
            placeholder={config.hasApiKey ? 'set — leave blank to keep it' : 'sk-…'}
            hint={config.hasApiKey ? 'Write-only: it is never shown again. Leave blank to keep the current key.' : 'Write-only: it is never shown again.'}
          />
        </>
      )}

      <InlineError error={error} />
      <div className="form-actions">
        <Button onClick={runTest} busy={testing} className="push-left" disabled={saving}>
          Test connection
        </Button>
        <Button type="submit" variant="primary" busy={saving}>
          Save
        </Button>
      </div>
      <p className="field-hint">{dirty ? t.llm.testsForm : t.llm.testsSaved}</p>
      {keyStaysBehind && <p className="field-hint">{t.llm.keyStaysBehind}</p>}
      <UnsavedChangesGuard when={dirty && !saving} />
      <div role="status" data-testid="llm-test-result">
        {test &&
          (test.ok ? (
            <p className="notice notice-success">{t.llm.works(test.model)}</p>
          ) : (
            <p className="notice notice-error">{t.llm.failed(test.message)}</p>
          ))}
      </div>
    </form>
  );
}
