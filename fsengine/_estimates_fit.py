"""Cost models of :mod:`fsengine.estimates`, written by
benchmarks/bench_estimates.py --write (do not edit by hand).

Measured on: linux, 2026-11-28.
"""

#: method -> coef (b0, bn, bp, bd, bk) of log seconds on (1, log n, log p,
#: log density, log K / default K), spread (largest |residual|, natural log),
#: and the largest samples and features measured.
COST_MODELS = {
    "_scoring": {
        "coef": [-5.3919, 0.562, -0.2687, 0.4489, 0.0],
        "spread": 4.335,
        "max_samples": 6400,
        "max_features": 400,
    },
    "kofsd": {
        "coef": [-17.501, 1.7689, 0.4008, -0.266, -0.8117],
        "spread": 1.238,
        "max_samples": 6400,
        "max_features": 400,
    },
    "ofs-fpd": {
        "coef": [-19.3155, 1.1201, 1.0938, -0.0722, 0.0],
        "spread": 1.103,
        "max_samples": 6400,
        "max_features": 400,
    },
    "cie-osfs": {
        "coef": [-17.6493, 1.0146, 1.132, 0.1047, 0.0],
        "spread": 0.857,
        "max_samples": 6400,
        "max_features": 400,
    },
    "alpha-investing": {
        "coef": [-19.0641, 1.3537, 0.5046, -0.5859, 0.0],
        "spread": 1.308,
        "max_samples": 6400,
        "max_features": 400,
    },
    "osfs": {
        "coef": [-18.987, 1.1612, 0.8762, -0.1842, 0.0],
        "spread": 1.125,
        "max_samples": 6400,
        "max_features": 400,
    },
    "fast-osfs": {
        "coef": [-17.9797, 1.0767, 0.8058, 0.044, 0.0],
        "spread": 0.807,
        "max_samples": 6400,
        "max_features": 400,
    },
    "saola": {
        "coef": [-18.6599, 1.0794, 0.9109, 0.0129, 0.0],
        "spread": 0.821,
        "max_samples": 6400,
        "max_features": 400,
    },
    "group-saola": {
        "coef": [-19.3513, 1.1109, 1.0215, -0.0378, 0.0],
        "spread": 0.852,
        "max_samples": 6400,
        "max_features": 400,
    },
    "ofs-a3m": {
        "coef": [-18.7569, 1.9724, 0.904, -0.69, 0.0],
        "spread": 1.112,
        "max_samples": 6400,
        "max_features": 400,
    },
    "ofs-density": {
        "coef": [-17.4311, 1.8527, 0.5914, -0.1619, 0.0],
        "spread": 1.185,
        "max_samples": 6400,
        "max_features": 400,
    },
    "rhofs": {
        "coef": [-21.2407, 1.1843, 1.4916, 0.0924, 0.0],
        "spread": 2.988,
        "max_samples": 6400,
        "max_features": 400,
    },
    "sfsf": {
        "coef": [-15.8479, 2.033, 0.4661, -1.0406, 0.0984],
        "spread": 1.741,
        "max_samples": 3200,
        "max_features": 400,
    },
    "osfs-et": {
        "coef": [-10.2864, 1.7115, 0.0952, -0.3262, 0.1306],
        "spread": 1.055,
        "max_samples": 1600,
        "max_features": 400,
    },
    "sfs-fi": {
        "coef": [-12.7961, 0.5504, 1.611, 1.0488, 0.0],
        "spread": 2.01,
        "max_samples": 6400,
        "max_features": 400,
    },
    "ossfs-dd": {
        "coef": [-14.2042, 1.0137, 0.513, 0.1025, 0.0],
        "spread": 1.787,
        "max_samples": 6400,
        "max_features": 400,
    },
    "grafting": {
        "coef": [-26.8388, 1.8446, 1.5377, 0.0907, 0.0],
        "spread": 1.669,
        "max_samples": 6400,
        "max_features": 400,
    },
    "fisher": {
        "coef": [-25.3188, 1.775, 1.5023, 0.3134, 0.0],
        "spread": 2.045,
        "max_samples": 6400,
        "max_features": 400,
    },
    "s2n": {
        "coef": [-20.4049, 1.3489, 0.9161, -0.1175, 0.0],
        "spread": 1.043,
        "max_samples": 6400,
        "max_features": 400,
    },
    "pcc": {
        "coef": [-23.9253, 1.4472, 1.3836, -0.2147, 0.0],
        "spread": 1.15,
        "max_samples": 6400,
        "max_features": 400,
    },
    "mi": {
        "coef": [-15.0291, 1.2688, 0.9369, 0.1983, 0.0],
        "spread": 1.052,
        "max_samples": 6400,
        "max_features": 400,
    },
    "relieff": {
        "coef": [-19.4139, 2.277, 0.6727, 0.319, 0.3705],
        "spread": 0.975,
        "max_samples": 6400,
        "max_features": 400,
    },
    "hellinger": {
        "coef": [-22.9057, 1.409, 1.5616, -0.2034, 0.0],
        "spread": 1.135,
        "max_samples": 6400,
        "max_features": 400,
    },
    "welch": {
        "coef": [-20.4727, 1.411, 0.9782, 0.3573, 0.0],
        "spread": 1.166,
        "max_samples": 6400,
        "max_features": 400,
    },
    "wilcoxon": {
        "coef": [-20.9944, 1.3916, 1.5764, 0.0859, 0.0],
        "spread": 1.422,
        "max_samples": 6400,
        "max_features": 400,
    },
    "d-fisher": {
        "coef": [-12.6817, 1.3952, 0.663, 0.1813, 0.0],
        "spread": 4.736,
        "max_samples": 6400,
        "max_features": 400,
    },
    "d-mi": {
        "coef": [-9.1719, 1.2238, 0.2072, -0.392, 0.0],
        "spread": 1.41,
        "max_samples": 6400,
        "max_features": 400,
    },
    "d-pcc": {
        "coef": [-13.8511, 1.5944, 0.9463, -0.0354, 0.0],
        "spread": 1.706,
        "max_samples": 3200,
        "max_features": 400,
    },
    "d-s2n": {
        "coef": [-2.959, 0.8162, -0.3006, -0.0165, 0.0],
        "spread": 2.357,
        "max_samples": 6400,
        "max_features": 400,
    },
}
