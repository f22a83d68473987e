package resample

// hostISA is the kernels of the highest tier this machine has, as New chooses them:
// the tests of single kernels run these (TestTiersMatchGo draws at every tier).
var hostISA = kernelsFor(host, TierAVX2)

// tierKernels is the table of each tier this machine runs, lowest first: the kernel
// tests check each against the Go loop, so that a lower tier's kernels run whole rows
// and not only the tails a higher tier leaves them.
func tierKernels() []kernels {
	var ks []kernels
	for _, t := range Tiers {
		if Supported(t) {
			ks = append(ks, kernelsFor(host, t))
		}
	}
	return ks
}
