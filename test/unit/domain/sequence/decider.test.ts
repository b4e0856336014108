import { describe, it } from 'vitest';
import { sequenceDecider } from '../../../../src/domain/sequence/decider.js';
import { specFor } from '../../../support/gwt.js';

const C1 = 'cccccccc-cccc-4ccc-8ccc-cccccccccccc';

describe('registration', () => {
  it('numbers companies from a sequence', () => {
    specFor(sequenceDecider)
      .given([{ type: 'SequenceValueReserved', data: { value: 41, reservedFor: 'x' } }])
      .when({ reservedFor: C1 })
      .then([{ type: 'SequenceValueReserved', data: { value: 42, reservedFor: C1 } }]);
  });
});
