"""Cost models of :mod:`fsengine.estimates`, written by
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
                "coef": [-11.6054, 1.0287, 0.1663],
                "spread": 0.61,
                "max_samples": 6400,
                "max_features": 400,
            },
            "sparse": {
                "coef": [-8.8328, 0.7059, 0.0396],
                "spread": 0.656,
                "max_samples": 6400,
                "max_features": 400,
            },
            "counts": {
                "coef": [-10.336, 0.6777, 0.339],
                "spread": 0.584,
                "max_samples": 6400,
                "max_features": 400,
            },
        },
        "bk": 0.0,
    },
    "kofsd": {
        "kinds": {
            "dense": {
                "coef": [-14.6106, 1.3655, 0.5053],
                "spread": 1.044,
                "max_samples": 6400,
                "max_features": 400,
            },
            "sparse": {
                "coef": [-22.9035, 2.4639, 0.7563],
                "spread": 0.508,
                "max_samples": 6400,
                "max_features": 400,
            },
            "counts": {
                "coef": [-19.3075, 2.4266, 0.4046],
                "spread": 0.998,
                "max_samples": 3200,
                "max_features": 400,
            },
        },
        "bk": -0.8105,
    },
    "ofs-fpd": {
        "kinds": {
            "dense": {
                "coef": [-20.5346, 1.0833, 1.8602],
                "spread": 2.65,
                "max_samples": 6400,
                "max_features": 400,
            },
            "sparse": {
                "coef": [-27.5619, 1.8241, 1.8041],
                "spread": 1.924,
                "max_samples": 6400,
                "max_features": 400,
            },
            "counts": {
                "coef": [-27.6001, 1.8793, 1.6984],
                "spread": 1.691,
                "max_samples": 6400,
                "max_features": 400,
            },
        },
        "bk": 0.0,
    },
    "cie-osfs": {
        "kinds": {
            "dense": {
                "coef": [-16.7555, 1.0178, 1.1543],
                "spread": 0.931,
                "max_samples": 6400,
                "max_features": 400,
            },
            "sparse": {
                "coef": [-21.6479, 1.3582, 1.5223],
                "spread": 1.257,
                "max_samples": 6400,
                "max_features": 400,
            },
            "counts": {
                "coef": [-17.9401, 1.3237, 1.1905],
                "spread": 1.464,
                "max_samples": 6400,
                "max_features": 400,
            },
        },
        "bk": 0.0,
    },
    "alpha-investing": {
        "kinds": {
            "dense": {
                "coef": [-17.6982, 1.5676, 0.1335],
                "spread": 4.914,
                "max_samples": 6400,
                "max_features": 400,
            },
            "sparse": {
                "coef": [-31.2162, 3.2341, 0.8162],
                "spread": 2.783,
                "max_samples": 6400,
                "max_features": 400,
            },
            "counts": {
                "coef": [-14.9598, 1.6003, 0.0245],
                "spread": 2.169,
                "max_samples": 6400,
                "max_features": 400,
            },
        },
        "bk": 0.0,
    },
    "osfs": {
        "kinds": {
            "dense": {
                "coef": [-23.2883, 1.8251, 1.1774],
                "spread": 1.863,
                "max_samples": 6400,
                "max_features": 400,
            },
            "sparse": {
                "coef": [-26.8862, 2.0233, 1.6558],
                "spread": 2.972,
                "max_samples": 6400,
                "max_features": 400,
            },
            "counts": {
                "coef": [-18.8668, 1.3992, 0.8022],
                "spread": 1.089,
                "max_samples": 6400,
                "max_features": 400,
            },
        },
        "bk": 0.0,
    },
    "fast-osfs": {
        "kinds": {
            "dense": {
                "coef": [-29.9982, 2.0051, 1.8775],
                "spread": 2.174,
                "max_samples": 6400,
                "max_features": 400,
            },
            "sparse": {
                "coef": [-34.676, 2.1323, 2.7043],
                "spread": 2.067,
                "max_samples": 6400,
                "max_features": 400,
            },
            "counts": {
                "coef": [-22.2297, 1.9334, 0.8727],
                "spread": 1.621,
                "max_samples": 6400,
                "max_features": 400,
            },
        },
        "bk": 0.0,
    },
    "saola": {
        "kinds": {
            "dense": {
                "coef": [-27.556, 2.2262, 1.3636],
                "spread": 2.032,
                "max_samples": 6400,
                "max_features": 400,
            },
            "sparse": {
                "coef": [-36.7146, 2.2819, 2.8431],
                "spread": 1.563,
                "max_samples": 6400,
                "max_features": 400,
            },
            "counts": {
                "coef": [-6.1289, 0.4178, -0.0059],
                "spread": 1.517,
                "max_samples": 6400,
                "max_features": 400,
            },
        },
        "bk": 0.0,
    },
    "group-saola": {
        "kinds": {
            "dense": {
                "coef": [-27.6207, 2.2558, 1.3356],
                "spread": 1.995,
                "max_samples": 6400,
                "max_features": 400,
            },
            "sparse": {
                "coef": [-23.903, 1.7108, 1.4068],
                "spread": 1.453,
                "max_samples": 6400,
                "max_features": 400,
            },
            "counts": {
                "coef": [-20.7224, 1.7447, 0.8038],
                "spread": 1.55,
                "max_samples": 6400,
                "max_features": 400,
            },
        },
        "bk": 0.0,
    },
    "ofs-a3m": {
        "kinds": {
            "dense": {
                "coef": [-16.1685, 1.9546, 0.5742],
                "spread": 1.13,
                "max_samples": 6400,
                "max_features": 400,
            },
            "sparse": {
                "coef": [-17.9425, 1.941, 1.1112],
                "spread": 1.112,
                "max_samples": 3200,
                "max_features": 400,
            },
            "counts": {
                "coef": [-17.2963, 2.0137, 1.0492],
                "spread": 0.189,
                "max_samples": 1600,
                "max_features": 400,
            },
        },
        "bk": 0.0,
    },
    "ofs-density": {
        "kinds": {
            "dense": {
                "coef": [-15.074, 1.518, 0.6435],
                "spread": 1.055,
                "max_samples": 6400,
                "max_features": 400,
            },
            "sparse": {
                "coef": [-15.5603, 2.064, 0.1111],
                "spread": 0.845,
                "max_samples": 6400,
                "max_features": 400,
            },
            "counts": {
                "coef": [-12.891, 1.8048, 0.1359],
                "spread": 1.839,
                "max_samples": 6400,
                "max_features": 400,
            },
        },
        "bk": 0.0,
    },
    "rhofs": {
        "kinds": {
            "dense": {
                "coef": [-27.2773, 1.1272, 2.7037],
                "spread": 2.658,
                "max_samples": 6400,
                "max_features": 400,
            },
            "sparse": {
                "coef": [-18.9153, 1.3337, 0.8262],
                "spread": 1.136,
                "max_samples": 6400,
                "max_features": 400,
            },
            "counts": {
                "coef": [-16.2448, 1.587, 0.396],
                "spread": 2.544,
                "max_samples": 6400,
                "max_features": 400,
            },
        },
        "bk": 0.0,
    },
    "sfsf": {
        "kinds": {
            "dense": {
                "coef": [-12.8694, 1.9078, -0.0587],
                "spread": 0.812,
                "max_samples": 3200,
                "max_features": 400,
            },
            "sparse": {
                "coef": [-19.3944, 2.7098, 0.8137],
                "spread": 0.277,
                "max_samples": 800,
                "max_features": 400,
            },
            "counts": {
                "coef": [-19.638, 2.7228, 0.763],
                "spread": 0.13,
                "max_samples": 1600,
                "max_features": 400,
            },
        },
        "bk": 0.1346,
    },
    "osfs-et": {
        "kinds": {
            "dense": {
                "coef": [-17.3219, 1.9946, 0.7811],
                "spread": 0.572,
                "max_samples": 3200,
                "max_features": 400,
            },
            "sparse": {
                "coef": [-20.8468, 2.5708, 0.9814],
                "spread": 0.601,
                "max_samples": 1600,
                "max_features": 400,
            },
            "counts": {
                "coef": [-28.3228, 3.1899, 1.7775],
                "spread": 0.682,
                "max_samples": 1600,
                "max_features": 400,
            },
        },
        "bk": -0.1536,
    },
    "sfs-fi": {
        "kinds": {
            "dense": {
                "coef": [-6.9425, 0.0631, 1.0349],
                "spread": 1.042,
                "max_samples": 6400,
                "max_features": 400,
            },
            "sparse": {
                "coef": [-19.2776, 0.9601, 1.755],
                "spread": 0.771,
                "max_samples": 6400,
                "max_features": 400,
            },
            "counts": {
                "coef": [-10.3545, 0.5689, 0.5619],
                "spread": 1.856,
                "max_samples": 6400,
                "max_features": 400,
            },
        },
        "bk": 0.0,
    },
    "ossfs-dd": {
        "kinds": {
            "dense": {
                "coef": [-20.5273, 1.4698, 1.0318],
                "spread": 3.524,
                "max_samples": 6400,
                "max_features": 400,
            },
            "sparse": {
                "coef": [-20.5987, 1.4006, 1.297],
                "spread": 4.308,
                "max_samples": 6400,
                "max_features": 400,
            },
            "counts": {
                "coef": [-19.0381, 1.0432, 1.2016],
                "spread": 2.048,
                "max_samples": 6400,
                "max_features": 400,
            },
        },
        "bk": 0.0,
    },
    "grafting": {
        "kinds": {
            "dense": {
                "coef": [-34.6868, 2.2534, 2.1418],
                "spread": 1.753,
                "max_samples": 6400,
                "max_features": 400,
            },
            "sparse": {
                "coef": [-32.4299, 2.4105, 1.5747],
                "spread": 3.664,
                "max_samples": 6400,
                "max_features": 400,
            },
            "counts": {
                "coef": [-36.8734, 2.7291, 2.0376],
                "spread": 2.266,
                "max_samples": 6400,
                "max_features": 400,
            },
        },
        "bk": 0.0,
    },
    "fisher": {
        "kinds": {
            "dense": {
                "coef": [-34.4731, 2.6425, 2.0269],
                "spread": 2.207,
                "max_samples": 6400,
                "max_features": 400,
            },
            "sparse": {
                "coef": [-34.8376, 2.2907, 2.4679],
                "spread": 1.765,
                "max_samples": 6400,
                "max_features": 400,
            },
            "counts": {
                "coef": [-30.5224, 1.9453, 2.0698],
                "spread": 2.178,
                "max_samples": 6400,
                "max_features": 400,
            },
        },
        "bk": 0.0,
    },
    "s2n": {
        "kinds": {
            "dense": {
                "coef": [-24.9879, 1.9794, 0.9594],
                "spread": 2.803,
                "max_samples": 6400,
                "max_features": 400,
            },
            "sparse": {
                "coef": [-34.818, 2.0429, 2.8027],
                "spread": 1.842,
                "max_samples": 6400,
                "max_features": 400,
            },
            "counts": {
                "coef": [-31.8712, 2.1199, 2.0453],
                "spread": 2.424,
                "max_samples": 6400,
                "max_features": 400,
            },
        },
        "bk": 0.0,
    },
    "pcc": {
        "kinds": {
            "dense": {
                "coef": [-33.3882, 1.9906, 2.5177],
                "spread": 1.646,
                "max_samples": 6400,
                "max_features": 400,
            },
            "sparse": {
                "coef": [-36.5482, 2.0408, 2.9448],
                "spread": 2.168,
                "max_samples": 6400,
                "max_features": 400,
            },
            "counts": {
                "coef": [-27.0179, 1.6437, 1.6505],
                "spread": 1.944,
                "max_samples": 6400,
                "max_features": 400,
            },
        },
        "bk": 0.0,
    },
    "mi": {
        "kinds": {
            "dense": {
                "coef": [-16.0513, 1.2396, 0.9161],
                "spread": 0.95,
                "max_samples": 6400,
                "max_features": 400,
            },
            "sparse": {
                "coef": [-21.4466, 1.4563, 1.6626],
                "spread": 0.77,
                "max_samples": 6400,
                "max_features": 400,
            },
            "counts": {
                "coef": [-14.3311, 1.4444, 0.3841],
                "spread": 1.88,
                "max_samples": 6400,
                "max_features": 400,
            },
        },
        "bk": 0.0,
    },
    "relieff": {
        "kinds": {
            "dense": {
                "coef": [-21.6565, 2.4169, 0.8868],
                "spread": 1.042,
                "max_samples": 6400,
                "max_features": 400,
            },
            "sparse": {
                "coef": [-20.5342, 2.3622, 0.5772],
                "spread": 0.62,
                "max_samples": 6400,
                "max_features": 400,
            },
            "counts": {
                "coef": [-23.3463, 2.4585, 1.0771],
                "spread": 1.776,
                "max_samples": 6400,
                "max_features": 400,
            },
        },
        "bk": -1.01,
    },
    "hellinger": {
        "kinds": {
            "dense": {
                "coef": [-29.8612, 2.0945, 1.9812],
                "spread": 1.873,
                "max_samples": 6400,
                "max_features": 400,
            },
            "sparse": {
                "coef": [-16.5435, 1.2799, 0.7773],
                "spread": 3.014,
                "max_samples": 6400,
                "max_features": 400,
            },
            "counts": {
                "coef": [-21.3635, 1.387, 1.6966],
                "spread": 1.668,
                "max_samples": 6400,
                "max_features": 400,
            },
        },
        "bk": 0.0,
    },
    "welch": {
        "kinds": {
            "dense": {
                "coef": [-28.6238, 2.245, 1.3557],
                "spread": 3.462,
                "max_samples": 6400,
                "max_features": 400,
            },
            "sparse": {
                "coef": [-31.4368, 1.839, 2.2045],
                "spread": 2.521,
                "max_samples": 6400,
                "max_features": 400,
            },
            "counts": {
                "coef": [-29.4992, 1.8518, 1.9164],
                "spread": 2.045,
                "max_samples": 6400,
                "max_features": 400,
            },
        },
        "bk": 0.0,
    },
    "wilcoxon": {
        "kinds": {
            "dense": {
                "coef": [-14.2341, 1.0468, 0.7999],
                "spread": 1.361,
                "max_samples": 6400,
                "max_features": 400,
            },
            "sparse": {
                "coef": [-20.0565, 1.393, 1.4156],
                "spread": 1.717,
                "max_samples": 6400,
                "max_features": 400,
            },
            "counts": {
                "coef": [-17.6782, 1.11, 1.0515],
                "spread": 0.722,
                "max_samples": 6400,
                "max_features": 400,
            },
        },
        "bk": 0.0,
    },
    "d-fisher": {
        "kinds": {
            "dense": {
                "coef": [-8.3867, 1.1911, 0.0962],
                "spread": 1.761,
                "max_samples": 6400,
                "max_features": 400,
            },
            "sparse": {
                "coef": [-5.7798, 1.1608, -0.1513],
                "spread": 1.1,
                "max_samples": 3200,
                "max_features": 400,
            },
            "counts": {
                "coef": [-16.5274, 1.9852, 1.0869],
                "spread": 0.588,
                "max_samples": 1600,
                "max_features": 400,
            },
        },
        "bk": 0.0,
    },
    "d-mi": {
        "kinds": {
            "dense": {
                "coef": [-6.5617, 1.0603, -0.0012],
                "spread": 1.161,
                "max_samples": 6400,
                "max_features": 400,
            },
            "sparse": {
                "coef": [-17.4897, 1.6174, 1.2111],
                "spread": 2.466,
                "max_samples": 6400,
                "max_features": 400,
            },
            "counts": {
                "coef": [-14.6204, 1.8099, 0.7849],
                "spread": 0.963,
                "max_samples": 1600,
                "max_features": 400,
            },
        },
        "bk": 0.0,
    },
    "d-pcc": {
        "kinds": {
            "dense": {
                "coef": [-4.638, 1.0579, -0.3087],
                "spread": 0.623,
                "max_samples": 6400,
                "max_features": 400,
            },
            "sparse": {
                "coef": [-7.3523, 0.915, 0.384],
                "spread": 0.913,
                "max_samples": 6400,
                "max_features": 400,
            },
            "counts": {
                "coef": [-13.8254, 2.7206, -0.6316],
                "spread": 1.921,
                "max_samples": 1600,
                "max_features": 400,
            },
        },
        "bk": 0.0,
    },
    "d-s2n": {
        "kinds": {
            "dense": {
                "coef": [-10.9057, 1.4898, 0.0804],
                "spread": 2.991,
                "max_samples": 6400,
                "max_features": 400,
            },
            "sparse": {
                "coef": [-8.9652, 0.8998, 0.503],
                "spread": 0.915,
                "max_samples": 6400,
                "max_features": 400,
            },
            "counts": {
                "coef": [-16.2991, 1.6512, 1.0188],
                "spread": 1.314,
                "max_samples": 6400,
                "max_features": 400,
            },
        },
        "bk": 0.0,
    },
    "kofsd:ties=average": {
        "kinds": {
            "dense": {
                "coef": [-13.015, 1.3017, 0.4583],
                "spread": 0.578,
                "max_samples": 6400,
                "max_features": 400,
            },
            "sparse": {
                "coef": [-15.6918, 1.0842, 0.7436],
                "spread": 0.282,
                "max_samples": 6400,
                "max_features": 400,
            },
            "counts": {
                "coef": [-16.0897, 0.8056, 1.4678],
                "spread": 2.642,
                "max_samples": 6400,
                "max_features": 400,
            },
        },
        "bk": -1.3047,
    },
    "sfsf:ties=average": {
        "kinds": {
            "dense": {
                "coef": [-15.9903, 1.6593, 0.4917],
                "spread": 0.715,
                "max_samples": 6400,
                "max_features": 400,
            },
            "sparse": {
                "coef": [-13.6727, 1.1573, 0.3946],
                "spread": 0.574,
                "max_samples": 6400,
                "max_features": 400,
            },
            "counts": {
                "coef": [-13.8445, 0.8447, 0.8399],
                "spread": 0.922,
                "max_samples": 6400,
                "max_features": 400,
            },
        },
        "bk": 0.1244,
    },
    "osfs-et:ties=average": {
        "kinds": {
            "dense": {
                "coef": [-14.7104, 1.7258, 0.8437],
                "spread": 0.321,
                "max_samples": 3200,
                "max_features": 400,
            },
            "sparse": {
                "coef": [-17.2905, 1.8183, 0.8199],
                "spread": 0.578,
                "max_samples": 6400,
                "max_features": 400,
            },
            "counts": {
                "coef": [-13.2004, 0.9029, 0.921],
                "spread": 1.137,
                "max_samples": 6400,
                "max_features": 400,
            },
        },
        "bk": -0.3506,
    },
    "ofs-a3m:ties=average": {
        "kinds": {
            "dense": {
                "coef": [-15.9124, 2.2873, 0.4362],
                "spread": 1.376,
                "max_samples": 1600,
                "max_features": 400,
            },
            "sparse": {
                "coef": [-23.866, 2.4694, 1.5005],
                "spread": 3.857,
                "max_samples": 3200,
                "max_features": 400,
            },
            "counts": {
                "coef": [-12.9984, 0.8597, 1.0811],
                "spread": 0.833,
                "max_samples": 6400,
                "max_features": 400,
            },
        },
        "bk": 0.0,
    },
    "ofs-density:ties=average": {
        "kinds": {
            "dense": {
                "coef": [-17.9371, 1.9738, 0.9628],
                "spread": 0.091,
                "max_samples": 3200,
                "max_features": 400,
            },
            "sparse": {
                "coef": [-15.8403, 1.0157, 0.8636],
                "spread": 0.421,
                "max_samples": 6400,
                "max_features": 400,
            },
            "counts": {
                "coef": [-12.1786, 0.7393, 0.5774],
                "spread": 0.865,
                "max_samples": 6400,
                "max_features": 400,
            },
        },
        "bk": 0.0,
    },
}
