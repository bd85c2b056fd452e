export { ApplyCBORPatchType, ApplyYAMLPatchType, decodeApplyConfiguration, managerOrUserAgent, serverSideApply, validateApplyPatchOptions, validateNonApplyPatchOptions } from './server-side-apply.js';
export { updateTracker } from './update-tracker.js';
