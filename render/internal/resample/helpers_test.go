package resample

// hostISA is the kernels of the highest tier this machine has, as New chooses them:
// the tests of single kernels run these (TestTiersMatchGo draws at every tier).
var hostISA = kernelsFor(host, TierAVX2)
