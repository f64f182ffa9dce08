/**
 * asl-validator 4.0.0 ships JavaScript only (CommonJS, `module.exports = validator`): its types, from its
 * src/types.ts and src/validator.ts, as the tests use them.
 */
declare module 'asl-validator' {
  interface StateMachineError {
    /** e.g. MISSING_TRANSITION_TARGET, SCHEMA_VALIDATION_FAILED. */
    'Error code': string;
    Message: string;
  }
  interface ValidationResult {
    isValid: boolean;
    errors: StateMachineError[];
    errorsText(separator?: string): string;
  }
  /** Checks an Amazon States Language definition; it adds `QueryLanguage` to the states it is given. */
  function aslValidator(
    definition: object,
    options?: { checkPaths: boolean; checkArn: boolean },
  ): ValidationResult;
  export = aslValidator;
}
