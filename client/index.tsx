export const inject = ["slots"]; export function apply() {}
