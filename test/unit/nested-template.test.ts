import { flattenTemplate, NestedTemplateError, type StackTemplate } from '../../local/template/nested';

const nestedResource = (parameters: Record<string, unknown>) => ({
  Type: 'AWS::CloudFormation::Stack',
  Properties: { Parameters: parameters, TemplateURL: 'https://example.com/part.json' },
});

const part: StackTemplate = {
  Parameters: { referencetoTableRef: { Type: 'String' }, referencetoTableArn: { Type: 'String' } },
  Resources: {
    CDKMetadata: { Type: 'AWS::CDK::Metadata' },
    Fn: {
      Type: 'AWS::Lambda::Function',
      Properties: {
        Environment: { Variables: { TABLE: { Ref: 'referencetoTableRef' }, REGION: { Ref: 'AWS::Region' } } },
        Role: { 'Fn::GetAtt': ['FnRole', 'Arn'] },
      },
    },
    FnPolicy: {
      Type: 'AWS::IAM::Policy',
      Properties: { Resource: [{ 'Fn::Join': ['', [{ Ref: 'referencetoTableArn' }, '/index/*']] }] },
    },
  },
  Outputs: { FnName: { Value: { Ref: 'Fn' } } },
};

const root: StackTemplate = {
  Resources: {
    CDKMetadata: { Type: 'AWS::CDK::Metadata' },
    Table: { Type: 'AWS::DynamoDB::Table' },
    Part: nestedResource({
      referencetoTableRef: { Ref: 'Table' },
      referencetoTableArn: { 'Fn::GetAtt': ['Table', 'Arn'] },
    }),
    Alarm: {
      Type: 'AWS::CloudWatch::Alarm',
      Properties: { Dimensions: [{ Value: { 'Fn::GetAtt': ['Part', 'Outputs.FnName'] } }] },
    },
  },
  Outputs: { Name: { Value: { 'Fn::GetAtt': ['Part', 'Outputs.FnName'] } } },
};

describe('flattenTemplate (a stack with nested stacks, read as the one template it deploys as)', () => {
  it('inlines the nested resources with their parameters replaced by what the parent passes', () => {
    const flat = flattenTemplate(root, (id) => {
      expect(id).toBe('Part');
      return part;
    });
    expect(Object.keys(flat.Resources ?? {}).sort()).toEqual([
      'Alarm',
      'CDKMetadata',
      'Fn',
      'FnPolicy',
      'Table',
    ]);
    expect(flat.Resources?.Fn?.Properties).toEqual({
      Environment: { Variables: { TABLE: { Ref: 'Table' }, REGION: { Ref: 'AWS::Region' } } },
      Role: { 'Fn::GetAtt': ['FnRole', 'Arn'] },
    });
    expect(flat.Resources?.FnPolicy?.Properties).toEqual({
      Resource: [{ 'Fn::Join': ['', [{ 'Fn::GetAtt': ['Table', 'Arn'] }, '/index/*']] }],
    });
  });

  it('replaces the parent’s reads of a nested output with the output’s value', () => {
    const flat = flattenTemplate(root, () => part);
    expect(flat.Resources?.Alarm?.Properties).toEqual({ Dimensions: [{ Value: { Ref: 'Fn' } }] });
    expect(flat.Outputs).toEqual({ Name: { Value: { Ref: 'Fn' } } });
  });

  it('inlines nested stacks of nested stacks', () => {
    const middle: StackTemplate = {
      Parameters: { referencetoTableRef: { Type: 'String' }, referencetoTableArn: { Type: 'String' } },
      Resources: {
        Inner: nestedResource({
          referencetoTableRef: { Ref: 'referencetoTableRef' },
          referencetoTableArn: { Ref: 'referencetoTableArn' },
        }),
      },
    };
    const { Alarm: _alarm, ...resources } = root.Resources ?? {};
    const flat = flattenTemplate({ Resources: resources }, (id) => (id === 'Part' ? middle : part));
    expect(flat.Resources?.Fn?.Properties).toMatchObject({
      Environment: { Variables: { TABLE: { Ref: 'Table' }, REGION: { Ref: 'AWS::Region' } } },
    });
  });

  it('refuses a logical id in two stacks, a parameter passed no value, and an output that is not there', () => {
    const twice = { ...root, Resources: { ...root.Resources, Fn: { Type: 'AWS::SNS::Topic' } } };
    expect(() => flattenTemplate(twice, () => part)).toThrow(
      new NestedTemplateError('logical id Fn is in more than one stack'),
    );
    const unpassed = { ...root, Resources: { ...root.Resources, Part: nestedResource({}) } };
    expect(() => flattenTemplate(unpassed, () => part)).toThrow(
      'Part passes no value for its parameter referencetoTableRef',
    );
    const { Outputs: _, ...withoutOutputs } = part;
    expect(() => flattenTemplate(root, () => withoutOutputs)).toThrow('Part has no output Outputs.FnName');
  });
});
