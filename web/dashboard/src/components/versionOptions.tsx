import type { AgentVersion } from '../api/agentVersions.js';

/** The `<option>`s of a version picker (Tests, Release, Experiment tabs): each version, with what it is now. */
export function versionOptions(versions: readonly Pick<AgentVersion, 'version' | 'published' | 'draft'>[]) {
  return versions.map((v) => (
    <option key={v.version} value={v.version}>
      Version {v.version}
      {v.published ? ' (published)' : v.draft ? ' (draft)' : ''}
    </option>
  ));
}
