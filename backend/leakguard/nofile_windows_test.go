package leakguard

// hasNofileLimit: Windows has no per-process open-file limit (nofileSoft
// answers 0, unlimited).
const hasNofileLimit = false
