import { StepFunctionsClient } from '../../lib/store/step-functions';
import {
  expectSignedJson,
  STAND_IN_CREDENTIALS,
  type StandIn,
  startStandIn,
} from '../support/aws-json-stand-in';

/**
 * StartExecution as lib/store/step-functions.ts sends it (AWS JSON 1.0, SigV4 for `states`), against a
 * stand-in endpoint that records each request and answers what the test says.
 */

let standIn: StandIn;
beforeAll(async () => {
  standIn = await startStandIn(
    '{"executionArn":"arn:aws:states:eu-west-1:1:execution:m:r","startDate":1.7E9}',
  );
});
afterAll(() => standIn.close());
beforeEach(() => {
  standIn.seen.length = 0;
  standIn.answers.length = 0;
});

const client = () =>
  new StepFunctionsClient({
    region: 'eu-west-1',
    endpoint: standIn.base,
    credentials: STAND_IN_CREDENTIALS,
    retryBaseMs: 1,
  });
const ARN = 'arn:aws:states:eu-west-1:123456789012:stateMachine:releases';
const error = (status: number, type: string) => ({
  status,
  body: JSON.stringify({ __type: `com.amazonaws.swf.service.v2.model#${type}`, message: `${type}!` }),
});

describe('StepFunctionsClient.startExecution', () => {
  it('sends StartExecution with the machine, the name and the input, signed for states', async () => {
    await client().startExecution(ARN, 'release-1', '{"release_id":"release-1"}');
    expect(standIn.seen).toHaveLength(1);
    expectSignedJson(standIn.seen[0], 'AWSStepFunctions.StartExecution', 'states', 'eu-west-1');
    expect(standIn.seen[0]?.body).toEqual({
      stateMachineArn: ARN,
      name: 'release-1',
      input: '{"release_id":"release-1"}',
    });
  });

  it('tries throttling and 5xx again, up to 3 times, and refusals not at all, naming the error', async () => {
    const { seen, answers } = standIn;
    answers.push(error(400, 'ThrottlingException'), { status: 502, body: '<html>bad gateway</html>' });
    await client().startExecution(ARN, 'r', '{}');
    expect(seen).toHaveLength(3);
    seen.length = 0;
    answers.push(...Array(3).fill(error(500, 'ServiceUnavailable')));
    await expect(client().startExecution(ARN, 'r', '{}')).rejects.toMatchObject({
      name: 'ServiceUnavailable',
      $metadata: { httpStatusCode: 500 },
    });
    expect(seen).toHaveLength(3);
    seen.length = 0;
    answers.push(error(400, 'ExecutionAlreadyExists'));
    await expect(client().startExecution(ARN, 'r', '{}')).rejects.toMatchObject({
      name: 'ExecutionAlreadyExists',
      message: 'ExecutionAlreadyExists!',
    });
    expect(seen).toHaveLength(1);
  });
});
