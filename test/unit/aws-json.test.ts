import { errorOf, postAwsJson } from '../../lib/store/aws-json';
import { http1Transport } from '../../lib/store/http1';
import { STAND_IN_CREDENTIALS, type StandIn, startStandIn } from '../support/aws-json-stand-in';

/** One request of the AWS JSON protocol (lib/store/aws-json.ts), against a loopback stand-in. */

let standIn: StandIn;
beforeAll(async () => {
  standIn = await startStandIn('{"ok":true}');
});
afterAll(() => standIn.close());

const post = async () =>
  postAwsJson(http1Transport(new URL(standIn.base)), {
    label: 'Test',
    url: new URL(standIn.base),
    region: 'eu-west-1',
    service: 'dynamodb',
    target: 'DynamoDB_20120810.GetItem',
    body: '{}',
    credentials: await STAND_IN_CREDENTIALS(),
    timeoutMs: 2000,
  });

describe('postAwsJson', () => {
  it('answers the status and the JSON; an error is named by its __type after the namespace', async () => {
    expect(await post()).toEqual({ status: 200, parsed: { ok: true } });
    standIn.answers.push({
      status: 400,
      body: '{"__type":"com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException","message":"no"}',
    });
    expect(errorOf(await post())).toEqual({ name: 'ConditionalCheckFailedException', message: 'no' });
  });

  it("keeps an error's body that is not JSON as its message, but never reads a success that is not JSON", async () => {
    standIn.answers.push({ status: 502, body: '<html>bad gateway</html>' });
    const answer = await post();
    expect([answer.status, errorOf(answer)]).toEqual([
      502,
      { name: 'HTTP502', message: '<html>bad gateway</html>' },
    ]);
    standIn.answers.push({ status: 200, body: '<html>not json</html>' });
    await expect(post()).rejects.toBeInstanceOf(SyntaxError);
  });
});
