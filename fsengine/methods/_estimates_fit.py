"""Cost models of :mod:`fsengine.methods.estimates`, written by
benchmarks/bench_estimates.py --write (do not edit by hand).

Measured on: linux, 2026-11-28.
"""

#: method -> per kind of data (dense, sparse, counts): coef (b0, bn, bp) of log
#: seconds on (1, log n, log p), spread (largest |residual|, natural log) and the
#: largest samples and features measured; bk: of log K / default K.
COST_MODELS = {
    "_scoring": {
        "kinds": {
            "dense": {
                "coef": [-12.0002, 1.0258, 0.0954],
                "spread": 0.701,
                "max_samples": 6400,
                "max_features": 1600,
            },
            "sparse": {
                "coef": [-9.2832, 0.6017, 0.0526],
                "spread": 0.332,
                "max_samples": 6400,
                "max_features": 1600,
            },
            "counts": {
                "coef": [-9.3151, 0.6083, 0.0526],
                "spread": 0.406,
                "max_samples": 6400,
                "max_features": 1600,
            },
        },
        "bk": 0.0,
    },
    "ofs-fpd": {
        "kinds": {
            "dense": {
                "coef": [-18.4063, 1.0354, 1.055],
                "spread": 1.154,
                "max_samples": 6400,
                "max_features": 1600,
            },
            "sparse": {
                "coef": [-17.7558, 0.9965, 0.9972],
                "spread": 0.976,
                "max_samples": 6400,
                "max_features": 1600,
            },
            "counts": {
                "coef": [-17.4776, 1.0047, 0.9356],
                "spread": 0.938,
                "max_samples": 6400,
                "max_features": 1600,
            },
        },
        "bk": 0.0,
    },
    "cie-osfs": {
        "kinds": {
            "dense": {
                "coef": [-16.4168, 0.9799, 0.9571],
                "spread": 0.603,
                "max_samples": 6400,
                "max_features": 1600,
            },
            "sparse": {
                "coef": [-16.3136, 0.9875, 0.8632],
                "spread": 0.288,
                "max_samples": 6400,
                "max_features": 1600,
            },
            "counts": {
                "coef": [-16.3223, 0.988, 0.865],
                "spread": 0.293,
                "max_samples": 6400,
                "max_features": 1600,
            },
        },
        "bk": 0.0,
    },
    "alpha-investing": {
        "kinds": {
            "dense": {
                "coef": [-28.4611, 1.7899, 1.441],
                "spread": 2.409,
                "max_samples": 6400,
                "max_features": 1600,
            },
            "sparse": {
                "coef": [-16.8252, 0.9788, 0.8597],
                "spread": 0.773,
                "max_samples": 6400,
                "max_features": 1600,
            },
            "counts": {
                "coef": [-16.1301, 0.9152, 0.8551],
                "spread": 0.435,
                "max_samples": 6400,
                "max_features": 1600,
            },
        },
        "bk": 0.0,
    },
    "osfs": {
        "kinds": {
            "dense": {
                "coef": [-24.7976, 1.4341, 1.494],
                "spread": 2.188,
                "max_samples": 6400,
                "max_features": 1600,
            },
            "sparse": {
                "coef": [-17.1876, 1.1831, 0.6853],
                "spread": 0.856,
                "max_samples": 6400,
                "max_features": 1600,
            },
            "counts": {
                "coef": [-16.9011, 1.0583, 0.762],
                "spread": 0.877,
                "max_samples": 6400,
                "max_features": 1600,
            },
        },
        "bk": 0.0,
    },
    "fast-osfs": {
        "kinds": {
            "dense": {
                "coef": [-24.5094, 1.4608, 1.4002],
                "spread": 2.204,
                "max_samples": 6400,
                "max_features": 1600,
            },
            "sparse": {
                "coef": [-16.8394, 1.0376, 0.7559],
                "spread": 0.953,
                "max_samples": 6400,
                "max_features": 1600,
            },
            "counts": {
                "coef": [-16.8259, 1.0381, 0.7331],
                "spread": 1.042,
                "max_samples": 6400,
                "max_features": 1600,
            },
        },
        "bk": 0.0,
    },
    "saola": {
        "kinds": {
            "dense": {
                "coef": [-24.4528, 1.4061, 1.4335],
                "spread": 2.086,
                "max_samples": 6400,
                "max_features": 1600,
            },
            "sparse": {
                "coef": [-16.5105, 0.9441, 0.7935],
                "spread": 0.946,
                "max_samples": 6400,
                "max_features": 1600,
            },
            "counts": {
                "coef": [-16.3732, 0.9383, 0.7725],
                "spread": 0.936,
                "max_samples": 6400,
                "max_features": 1600,
            },
        },
        "bk": 0.0,
    },
    "group-saola": {
        "kinds": {
            "dense": {
                "coef": [-24.3515, 1.4144, 1.4188],
                "spread": 2.17,
                "max_samples": 6400,
                "max_features": 1600,
            },
            "sparse": {
                "coef": [-16.6627, 0.942, 0.83],
                "spread": 0.942,
                "max_samples": 6400,
                "max_features": 1600,
            },
            "counts": {
                "coef": [-16.443, 0.9444, 0.7805],
                "spread": 0.937,
                "max_samples": 6400,
                "max_features": 1600,
            },
        },
        "bk": 0.0,
    },
    "ofs-a3m": {
        "kinds": {
            "dense": {
                "coef": [-16.568, 1.8453, 0.4331],
                "spread": 0.703,
                "max_samples": 6400,
                "max_features": 1600,
            },
            "sparse": {
                "coef": [-22.6174, 3.0182, 0.4769],
                "spread": 2.264,
                "max_samples": 3200,
                "max_features": 1600,
            },
            "counts": {
                "coef": [-17.4314, 2.4261, 0.2618],
                "spread": 1.801,
                "max_samples": 3200,
                "max_features": 1600,
            },
        },
        "bk": 0.0,
    },
    "ofs-density": {
        "kinds": {
            "dense": {
                "coef": [-15.6174, 1.4056, 0.5978],
                "spread": 1.355,
                "max_samples": 6400,
                "max_features": 1600,
            },
            "sparse": {
                "coef": [-17.1423, 2.0703, 0.2908],
                "spread": 1.906,
                "max_samples": 6400,
                "max_features": 1600,
            },
            "counts": {
                "coef": [-16.0418, 1.9304, 0.2837],
                "spread": 1.81,
                "max_samples": 6400,
                "max_features": 1600,
            },
        },
        "bk": 0.0,
    },
    "rhofs": {
        "kinds": {
            "dense": {
                "coef": [-15.3778, 0.3968, 1.2212],
                "spread": 3.163,
                "max_samples": 6400,
                "max_features": 1600,
            },
            "sparse": {
                "coef": [-17.9523, 1.1976, 0.8682],
                "spread": 1.808,
                "max_samples": 6400,
                "max_features": 1600,
            },
            "counts": {
                "coef": [-15.5489, 1.3266, 0.3457],
                "spread": 1.939,
                "max_samples": 6400,
                "max_features": 1600,
            },
        },
        "bk": 0.0,
    },
    "sfsf": {
        "kinds": {
            "dense": {
                "coef": [-16.5374, 1.9045, 0.3557],
                "spread": 0.953,
                "max_samples": 6400,
                "max_features": 1600,
            },
            "sparse": {
                "coef": [-22.3422, 2.9653, 0.8464],
                "spread": 0.393,
                "max_samples": 1600,
                "max_features": 1600,
            },
            "counts": {
                "coef": [-20.9484, 2.7475, 0.7409],
                "spread": 0.411,
                "max_samples": 1600,
                "max_features": 1600,
            },
        },
        "bk": 0.2586,
    },
    "osfs-et": {
        "kinds": {
            "dense": {
                "coef": [-15.7214, 1.922, 0.4299],
                "spread": 0.315,
                "max_samples": 6400,
                "max_features": 1600,
            },
            "sparse": {
                "coef": [-21.2793, 2.6871, 0.9093],
                "spread": 0.467,
                "max_samples": 1600,
                "max_features": 1600,
            },
            "counts": {
                "coef": [-20.745, 2.825, 0.6266],
                "spread": 0.802,
                "max_samples": 1600,
                "max_features": 1600,
            },
        },
        "bk": -0.2152,
    },
    "sfs-fi": {
        "kinds": {
            "dense": {
                "coef": [-15.1107, 0.3584, 1.7742],
                "spread": 1.075,
                "max_samples": 6400,
                "max_features": 1600,
            },
            "sparse": {
                "coef": [-13.3702, 0.4987, 0.9674],
                "spread": 1.109,
                "max_samples": 6400,
                "max_features": 1600,
            },
            "counts": {
                "coef": [-13.9891, 0.5613, 0.9788],
                "spread": 0.583,
                "max_samples": 6400,
                "max_features": 1600,
            },
        },
        "bk": 0.0,
    },
    "ossfs-dd": {
        "kinds": {
            "dense": {
                "coef": [-15.8844, 0.7253, 0.9292],
                "spread": 0.874,
                "max_samples": 6400,
                "max_features": 1600,
            },
            "sparse": {
                "coef": [-14.2877, 0.7457, 0.6721],
                "spread": 1.004,
                "max_samples": 6400,
                "max_features": 1600,
            },
            "counts": {
                "coef": [-13.9997, 0.7609, 0.5862],
                "spread": 0.614,
                "max_samples": 6400,
                "max_features": 1600,
            },
        },
        "bk": 0.0,
    },
    "grafting": {
        "kinds": {
            "dense": {
                "coef": [-20.5062, 1.1597, 1.054],
                "spread": 1.322,
                "max_samples": 6400,
                "max_features": 1600,
            },
            "sparse": {
                "coef": [-17.5014, 0.9604, 0.827],
                "spread": 0.661,
                "max_samples": 6400,
                "max_features": 1600,
            },
            "counts": {
                "coef": [-18.3785, 0.9871, 0.9369],
                "spread": 0.571,
                "max_samples": 6400,
                "max_features": 1600,
            },
        },
        "bk": 0.0,
    },
    "fisher": {
        "kinds": {
            "dense": {
                "coef": [-18.1726, 0.9523, 0.9675],
                "spread": 0.818,
                "max_samples": 6400,
                "max_features": 1600,
            },
            "sparse": {
                "coef": [-17.4102, 0.9306, 0.9381],
                "spread": 0.622,
                "max_samples": 6400,
                "max_features": 1600,
            },
            "counts": {
                "coef": [-17.9111, 1.0108, 0.9553],
                "spread": 0.462,
                "max_samples": 6400,
                "max_features": 1600,
            },
        },
        "bk": 0.0,
    },
    "s2n": {
        "kinds": {
            "dense": {
                "coef": [-18.6964, 1.0335, 0.978],
                "spread": 0.806,
                "max_samples": 6400,
                "max_features": 1600,
            },
            "sparse": {
                "coef": [-17.2801, 0.941, 0.935],
                "spread": 0.392,
                "max_samples": 6400,
                "max_features": 1600,
            },
            "counts": {
                "coef": [-17.341, 0.9338, 0.9616],
                "spread": 0.529,
                "max_samples": 6400,
                "max_features": 1600,
            },
        },
        "bk": 0.0,
    },
    "pcc": {
        "kinds": {
            "dense": {
                "coef": [-18.0372, 0.9, 0.9669],
                "spread": 0.753,
                "max_samples": 6400,
                "max_features": 1600,
            },
            "sparse": {
                "coef": [-17.5717, 0.8932, 0.9975],
                "spread": 0.424,
                "max_samples": 6400,
                "max_features": 1600,
            },
            "counts": {
                "coef": [-17.5242, 0.8719, 1.0156],
                "spread": 0.422,
                "max_samples": 6400,
                "max_features": 1600,
            },
        },
        "bk": 0.0,
    },
    "mi": {
        "kinds": {
            "dense": {
                "coef": [-18.6992, 1.3547, 1.0719],
                "spread": 0.267,
                "max_samples": 6400,
                "max_features": 1600,
            },
            "sparse": {
                "coef": [-18.7625, 1.2849, 1.1441],
                "spread": 0.364,
                "max_samples": 6400,
                "max_features": 1600,
            },
            "counts": {
                "coef": [-16.9671, 1.2178, 0.936],
                "spread": 0.48,
                "max_samples": 6400,
                "max_features": 1600,
            },
        },
        "bk": 0.0,
    },
    "relieff": {
        "kinds": {
            "dense": {
                "coef": [-20.5499, 2.1676, 0.6702],
                "spread": 0.378,
                "max_samples": 6400,
                "max_features": 1600,
            },
            "sparse": {
                "coef": [-21.0197, 2.1942, 0.7321],
                "spread": 0.368,
                "max_samples": 6400,
                "max_features": 1600,
            },
            "counts": {
                "coef": [-20.5068, 2.1906, 0.6471],
                "spread": 0.42,
                "max_samples": 6400,
                "max_features": 1600,
            },
        },
        "bk": 0.0135,
    },
    "hellinger": {
        "kinds": {
            "dense": {
                "coef": [-19.6969, 1.1476, 1.1429],
                "spread": 0.855,
                "max_samples": 6400,
                "max_features": 1600,
            },
            "sparse": {
                "coef": [-17.8571, 1.0771, 0.963],
                "spread": 0.327,
                "max_samples": 6400,
                "max_features": 1600,
            },
            "counts": {
                "coef": [-18.023, 1.094, 0.9546],
                "spread": 0.363,
                "max_samples": 6400,
                "max_features": 1600,
            },
        },
        "bk": 0.0,
    },
    "welch": {
        "kinds": {
            "dense": {
                "coef": [-18.0758, 0.955, 0.9097],
                "spread": 0.965,
                "max_samples": 6400,
                "max_features": 1600,
            },
            "sparse": {
                "coef": [-16.8612, 0.8659, 0.8867],
                "spread": 0.497,
                "max_samples": 6400,
                "max_features": 1600,
            },
            "counts": {
                "coef": [-16.982, 0.8782, 0.8997],
                "spread": 0.549,
                "max_samples": 6400,
                "max_features": 1600,
            },
        },
        "bk": 0.0,
    },
    "wilcoxon": {
        "kinds": {
            "dense": {
                "coef": [-18.543, 1.25, 1.0775],
                "spread": 0.32,
                "max_samples": 6400,
                "max_features": 1600,
            },
            "sparse": {
                "coef": [-16.6488, 0.9742, 0.882],
                "spread": 0.093,
                "max_samples": 6400,
                "max_features": 1600,
            },
            "counts": {
                "coef": [-16.8744, 0.9396, 0.9274],
                "spread": 0.212,
                "max_samples": 6400,
                "max_features": 1600,
            },
        },
        "bk": 0.0,
    },
    "d-fisher": {
        "kinds": {
            "dense": {
                "coef": [-11.537, 0.6292, 0.9076],
                "spread": 3.507,
                "max_samples": 6400,
                "max_features": 1600,
            },
            "sparse": {
                "coef": [-13.9594, 1.6706, 0.24],
                "spread": 2.056,
                "max_samples": 6400,
                "max_features": 1600,
            },
            "counts": {
                "coef": [-19.8421, 1.5657, 1.2312],
                "spread": 1.892,
                "max_samples": 6400,
                "max_features": 1600,
            },
        },
        "bk": 0.0,
    },
    "d-mi": {
        "kinds": {
            "dense": {
                "coef": [-20.2201, 1.5759, 1.1692],
                "spread": 1.904,
                "max_samples": 6400,
                "max_features": 1600,
            },
            "sparse": {
                "coef": [-20.0397, 1.7548, 1.1596],
                "spread": 1.521,
                "max_samples": 6400,
                "max_features": 1600,
            },
            "counts": {
                "coef": [-15.864, 1.4204, 1.0682],
                "spread": 2.483,
                "max_samples": 6400,
                "max_features": 1600,
            },
        },
        "bk": 0.0,
    },
    "d-pcc": {
        "kinds": {
            "dense": {
                "coef": [-10.1274, 1.1055, 0.2956],
                "spread": 2.948,
                "max_samples": 6400,
                "max_features": 1600,
            },
            "sparse": {
                "coef": [-22.644, 1.5617, 2.0134],
                "spread": 1.914,
                "max_samples": 6400,
                "max_features": 1600,
            },
            "counts": {
                "coef": [-16.651, 1.5049, 1.191],
                "spread": 2.672,
                "max_samples": 6400,
                "max_features": 1600,
            },
        },
        "bk": 0.0,
    },
    "d-s2n": {
        "kinds": {
            "dense": {
                "coef": [-16.4176, 1.537, 0.5056],
                "spread": 1.567,
                "max_samples": 6400,
                "max_features": 1600,
            },
            "sparse": {
                "coef": [-14.2201, 1.4734, 0.5602],
                "spread": 1.808,
                "max_samples": 6400,
                "max_features": 1600,
            },
            "counts": {
                "coef": [-16.6493, 1.5177, 1.1807],
                "spread": 2.582,
                "max_samples": 6400,
                "max_features": 1600,
            },
        },
        "bk": 0.0,
    },
    "ofs-a3m:ties=average": {
        "kinds": {
            "dense": {
                "coef": [-18.7102, 2.1358, 1.1686],
                "spread": 1.547,
                "max_samples": 1600,
                "max_features": 1600,
            },
            "sparse": {
                "coef": [-19.4957, 1.9411, 0.9353],
                "spread": 2.255,
                "max_samples": 6400,
                "max_features": 1600,
            },
            "counts": {
                "coef": [-13.3587, 1.2179, 0.6623],
                "spread": 1.765,
                "max_samples": 6400,
                "max_features": 1600,
            },
        },
        "bk": 0.0,
    },
    "ofs-density:ties=average": {
        "kinds": {
            "dense": {
                "coef": [-17.9114, 1.963, 0.9728],
                "spread": 0.096,
                "max_samples": 3200,
                "max_features": 1600,
            },
            "sparse": {
                "coef": [-16.8168, 1.3364, 0.8492],
                "spread": 1.605,
                "max_samples": 6400,
                "max_features": 1600,
            },
            "counts": {
                "coef": [-13.2476, 0.7383, 0.7946],
                "spread": 0.971,
                "max_samples": 6400,
                "max_features": 1600,
            },
        },
        "bk": 0.0,
    },
    "kofsd": {
        "kinds": {
            "dense": {
                "coef": [-13.6605, 1.0638, 0.5216],
                "spread": 0.672,
                "max_samples": 25600,
                "max_features": 1600,
            },
            "sparse": {
                "coef": [-18.5758, 1.4162, 0.9853],
                "spread": 2.743,
                "max_samples": 25600,
                "max_features": 1600,
            },
            "counts": {
                "coef": [-16.3328, 1.2088, 0.8616],
                "spread": 1.583,
                "max_samples": 25600,
                "max_features": 1600,
            },
        },
        "bk": -0.761,
    },
    "kofsd:ties=average": {
        "kinds": {
            "dense": {
                "coef": [-12.5426, 0.9397, 0.7683],
                "spread": 0.296,
                "max_samples": 25600,
                "max_features": 1600,
            },
            "sparse": {
                "coef": [-14.6573, 0.9931, 0.9701],
                "spread": 0.799,
                "max_samples": 25600,
                "max_features": 1600,
            },
            "counts": {
                "coef": [-13.6793, 0.6509, 1.1885],
                "spread": 1.829,
                "max_samples": 25600,
                "max_features": 1600,
            },
        },
        "bk": -0.7134,
    },
    "sfsf:ties=average": {
        "kinds": {
            "dense": {
                "coef": [-13.5639, 1.0164, 0.8031],
                "spread": 0.225,
                "max_samples": 25600,
                "max_features": 1600,
            },
            "sparse": {
                "coef": [-14.1942, 0.9023, 0.8187],
                "spread": 0.851,
                "max_samples": 25600,
                "max_features": 1600,
            },
            "counts": {
                "coef": [-13.7239, 0.8818, 0.7198],
                "spread": 0.635,
                "max_samples": 25600,
                "max_features": 1600,
            },
        },
        "bk": 0.4204,
    },
    "osfs-et:ties=average": {
        "kinds": {
            "dense": {
                "coef": [-11.2682, 1.0192, 0.8657],
                "spread": 0.698,
                "max_samples": 12800,
                "max_features": 1600,
            },
            "sparse": {
                "coef": [-9.6761, 0.8157, 0.4774],
                "spread": 1.09,
                "max_samples": 25600,
                "max_features": 1600,
            },
            "counts": {
                "coef": [-11.9435, 0.7909, 0.7435],
                "spread": 1.408,
                "max_samples": 25600,
                "max_features": 1600,
            },
        },
        "bk": -0.6456,
    },
}
