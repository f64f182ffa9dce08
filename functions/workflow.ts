/** The publishing workflow's steps and settings, for the stack (infra/publishing.ts): see lib/catalog/pipeline/workflow.ts. */
export * from '../lib/catalog/pipeline/workflow';
