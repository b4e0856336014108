import { describe, expect, it } from 'vitest';
import { LlmError } from '../../src/ports/llm.js';
import { plainLlmFailure } from '../../src/workers/answers/answerGeneration.js';

describe('why the AI could not answer, in plain words', () => {
  it.each([
    [new LlmError('unreachable', 'could not reach the LLM API at http://127.0.0.1:11434 (connect ECONNREFUSED 127.0.0.1:11434)', true), 'The AI model could not be reached (connection refused)'],
    [new LlmError('unreachable', 'could not reach the LLM API at http://llm.internal (getaddrinfo ENOTFOUND llm.internal)', true), 'The AI model could not be reached (its host name was not found)'],
    [new LlmError('timeout', 'the LLM API at http://10.0.0.5:8000 did not answer in time', true), 'The AI model did not answer in time (timeout)'],
    [new LlmError('server_error', 'the LLM API at http://10.0.0.5:8000 answered HTTP 503: server error', true, 503), "The AI model's service had an error (HTTP 503)"],
    [new LlmError('auth', 'the LLM API at https://api.example answered HTTP 401: the API key was rejected', false, 401), "The AI model's API key was refused"],
    [new LlmError('rate_limited', 'the LLM API at https://api.example answered HTTP 429: quota exhausted', false, 429), "The AI model's quota is used up"],
    [new LlmError('invalid_request', 'the LLM API at https://api.example answered HTTP 404: unknown model', false, 404), 'The AI model refused the request (HTTP 404): check the model name'],
  ])('given %s, then the team reads "%s"', (err, plain) => {
    expect(plainLlmFailure(err)).toBe(plain);
  });
  it('never repeats an address, a port or a socket error code', () => {
    const said = plainLlmFailure(new LlmError('unreachable', 'could not reach the LLM API at http://192.168.1.20:11434/v1 (connect EHOSTUNREACH 192.168.1.20:11434)', true));
    expect(said).not.toMatch(/\d+\.\d+\.\d+\.\d+|11434|EHOSTUNREACH|http/);
  });
});
