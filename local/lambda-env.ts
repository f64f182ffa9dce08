// What the Lambda runtime sets in every container, for the local tools that run the handlers: with
// it, the logger marks each function's first invocation `cold_start: true`, as in AWS. Imported before
// the handlers (the logger reads it when it is created).
process.env.AWS_LAMBDA_INITIALIZATION_TYPE ??= 'on-demand';
