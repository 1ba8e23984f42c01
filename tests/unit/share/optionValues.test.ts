/**
 * Issue 21 items 2 and 3: a model option value the record schema cannot hold (±Infinity, 1e400)
 * and an option name found on Object.prototype (`constructor`) are refused up front, with the
 * usual sentence, by the one constraint check that the CLI (`--option`), the URL (`opt=`) and the
 * planner (applyOptionAssignments) share.
 */
import { describe, expect, it } from 'vitest';
import {
  getAlgorithm,
  parseOptionAssignment,
  resolveModelOptions,
} from '../../../src/lib/models/catalogue.ts';
import { interval, ParamError, validateParams } from '../../../src/lib/models/params.ts';
import { planFromFields, readHash } from '../../../src/lib/share/urlState.ts';
import { applyOptionAssignments } from '../../../src/lib/suite/modelOptions.ts';
import { classroomPlan } from '../../../src/lib/suite/presets.ts';

const plan = () => ({ ...classroomPlan(), algorithms: ['lp', 'ls', 'ssgmm'] });

describe('non-finite option values are refused up front', () => {
  it.each([
    [
      'lp.gamma=Infinity',
      /^The 'gamma' parameter of lp must be a finite number in the range \[0, inf\)\. Got Infinity instead\.$/,
    ],
    [
      'lp.gamma=1e400',
      /^The 'gamma' parameter of lp must be a finite number .* Got 1e400 \(read as Infinity\) instead\.$/,
    ],
    ['lp.tol=-Infinity', /^The 'tol' parameter of lp must be a finite number .* Got -Infinity instead\.$/],
    [
      'lp.maxIter=Infinity',
      /^The 'maxIter' parameter of lp must be a finite integer in the range \[1, inf\]\. Got Infinity instead\.$/,
    ],
    ['lp.gamma=abc', /^The 'gamma' parameter of lp must be a number .* Got "abc" instead\.$/],
  ])('the CLI and the planner refuse %s', (text, message) => {
    expect(() => parseOptionAssignment(text)).toThrow(message);
    expect(() => applyOptionAssignments(plan(), [text])).toThrow(ParamError);
    expect(() => applyOptionAssignments(plan(), [text], { strict: false })).toThrow(message);
  });

  it('a link with opt=lp.gamma:Infinity gives a notice and runs the defaults', () => {
    for (const raw of ['lp.gamma:Infinity', 'lp.gamma:1e400', 'lp.gamma=-Infinity']) {
      const r = readHash(`#/run?v=1&ds=iris&alg=lp&opt=${raw}`);
      expect(r.notices, raw).toHaveLength(1);
      expect(r.notices[0]).toMatch(/^Ignored opt=.*must be a finite number in the range \[0, inf\)/);
      expect(planFromFields(r.fields)).not.toHaveProperty('modelOptions');
    }
  });

  it('a plan whose model options hold Infinity (a stored plan, a record) is refused too', () => {
    expect(() => resolveModelOptions(getAlgorithm('lp'), 'rsb', { gamma: Infinity })).toThrow(
      /must be a finite number in the range \[0, inf\)\. Got Infinity instead\./,
    );
    // The estimators' own tables: a range open at infinity never admits Infinity.
    const table = { C: interval(0, undefined, 'neither'), n: interval(1, undefined, 'both', true) };
    expect(() => validateParams('SVM', table, { C: Infinity })).toThrow(
      "The 'C' parameter of SVM must be a finite number in the range (0, inf). Got Infinity instead.",
    );
    expect(() => validateParams('SVM', table, { n: -Infinity })).toThrow(/must be a finite integer/);
    expect(() => validateParams('SVM', table, { C: 1e308, n: 3 })).not.toThrow();
  });
});

describe('option names found on Object.prototype are unknown options', () => {
  it.each(['constructor', 'toString', 'hasOwnProperty', 'valueOf'])('lp.%s=1', (name) => {
    const unknown = `'${name}' is not an option of lp. Options: gamma, maxIter, tol.`;
    expect(() => parseOptionAssignment(`lp.${name}=1`)).toThrow(unknown);
    expect(() => applyOptionAssignments(plan(), [`lp.${name}=1`])).toThrow(unknown);
    expect(() => resolveModelOptions(getAlgorithm('lp'), 'rsb', { [name]: 1 })).toThrow(unknown);
    expect(() =>
      validateParams('LabelPropagation', { gamma: interval(0, undefined) }, { [name]: 1 }),
    ).toThrow(`'${name}' is not a parameter of LabelPropagation. Valid parameters: gamma.`);
    const r = readHash(`#/run?v=1&ds=iris&alg=lp&opt=lp.${name}:1`);
    expect(r.notices).toEqual([`Ignored opt="lp.${name}:1" (${unknown}); using the default.`]);
  });
});
