"""Cases for tf.keras.preprocessing.image, run on TF 1.15 (record_keras_image.py) and on
tfcluster (tests/unit/test_keras_preprocessing_image.py). Each case takes the `image` module and
a scratch folder and returns plain values; seeded cases seed numpy's global generator, as
keras_preprocessing draws from it. Python 3.7 code (the recorder runs under TF 1.15)."""

import os
import shutil

import numpy as np

FILES_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "keras_image_files")


def _img(shape, seed=0, scale=255.0):
    return (np.random.RandomState(seed).rand(*shape) * scale).astype("float32")


def _error(fn):
    try:
        fn()
    except Exception as e:  # the class is what is compared
        return {"error": type(e).__name__}
    return {"error": "none"}


def make_image_files(root):
    """A small class-per-folder image tree: PNG (RGB, RGBA, L) and JPEG files of odd sizes."""
    from PIL import Image

    if os.path.exists(root):
        shutil.rmtree(root)
    rs = np.random.RandomState(7)
    layout = {
        "cats": [
            ("c0.png", "RGB", (9, 7)),
            ("c1.jpg", "RGB", (10, 12)),
            ("c2.png", "RGBA", (8, 8)),
            ("c3.jpeg", "RGB", (6, 11)),
            ("notes.txt", None, None),
        ],
        "dogs": [
            ("d0.png", "L", (12, 9)),
            ("d1.png", "RGB", (8, 8)),
            ("d2.jpg", "L", (7, 7)),
            ("sub/d3.png", "RGB", (5, 9)),
        ],
        "zebras": [
            ("z0.png", "RGB", (11, 6)),
            ("z1.png", "RGBA", (9, 9)),
            ("z2.png", "RGB", (6, 6)),
        ],
    }
    for cls, files in sorted(layout.items()):
        for name, mode, size in files:
            path = os.path.join(root, cls, name)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            if mode is None:
                with open(path, "w") as f:
                    f.write("not an image\n")
                continue
            depth = {"RGB": 3, "RGBA": 4, "L": 1}[mode]
            pixels = rs.randint(0, 256, size=(size[1], size[0], depth)).astype("uint8")
            if depth == 1:
                pixels = pixels[:, :, 0]
            Image.fromarray(pixels, mode).save(path, quality=90)


def _affine(image):
    x = _img((8, 9, 3))
    out = {}
    params = [
        ("rotate", dict(theta=33.0)),
        ("shift", dict(tx=1.5, ty=-2.25)),
        ("shear", dict(shear=17.0)),
        ("zoom", dict(zx=0.8, zy=1.3)),
        ("all", dict(theta=-12.0, tx=0.7, ty=1.1, shear=5.0, zx=1.1, zy=0.9)),
        ("neutral", dict()),
    ]
    for name, p in params:
        for mode in ("nearest", "constant", "reflect", "wrap"):
            out[name + "_" + mode] = image.apply_affine_transform(x, fill_mode=mode, cval=3.0, **p)
    out["channels_first"] = image.apply_affine_transform(
        x.transpose(2, 0, 1), theta=20.0, zx=0.9, row_axis=1, col_axis=2, channel_axis=0
    )
    out["order0"] = image.apply_affine_transform(x, theta=20.0, order=0)
    return out


def _channel_and_brightness(image):
    x = _img((6, 5, 3))
    return {
        "channel_shift_last": image.apply_channel_shift(x, 40.0, channel_axis=2),
        "channel_shift_first": image.apply_channel_shift(x.transpose(2, 0, 1), -30.0, 0),
        "brightness_half": image.apply_brightness_shift(x, 0.5),
        "brightness_up": image.apply_brightness_shift(x * 0.01, 1.7),
    }


def _random_functions(image):
    chw = _img((3, 8, 10))
    hwc = _img((8, 10, 3), seed=1)
    out = {}
    calls = [
        ("rotation", lambda: image.random_rotation(chw, 40)),
        ("rotation_last", lambda: image.random_rotation(hwc, 40, 0, 1, 2, "constant", 1.0)),
        ("shift", lambda: image.random_shift(chw, 0.2, 0.3)),
        ("shift_last", lambda: image.random_shift(hwc, 0.2, 0.3, 0, 1, 2, "reflect")),
        ("shear", lambda: image.random_shear(chw, 25)),
        ("zoom", lambda: image.random_zoom(chw, (0.7, 1.2))),
        ("zoom_last", lambda: image.random_zoom(hwc, (0.7, 1.2), 0, 1, 2, "wrap")),
        ("zoom_identity", lambda: image.random_zoom(chw, (1, 1))),
        ("channel_shift", lambda: image.random_channel_shift(chw, 50.0)),
        ("brightness", lambda: image.random_brightness(hwc, (0.3, 1.6))),
    ]
    for name, call in calls:
        np.random.seed(123)
        out[name] = call()
        out[name + "_next_draw"] = np.random.uniform()
    return out


def _generator_flow(image):
    x = _img((7, 6, 5, 3), seed=2)
    y = np.arange(7)
    gen = image.ImageDataGenerator(
        rotation_range=25,
        width_shift_range=0.2,
        height_shift_range=[1, 2],
        shear_range=8,
        zoom_range=[0.8, 1.2],
        channel_shift_range=20.0,
        fill_mode="reflect",
        horizontal_flip=True,
        vertical_flip=True,
        rescale=1.0 / 255,
    )
    it = gen.flow(x, y, batch_size=3, seed=11)
    out = {"len": len(it)}
    for i in range(4):
        bx, by = next(it)
        out[f"next_{i}_x"] = bx
        out[f"next_{i}_y"] = by
    seq = gen.flow(x, y, batch_size=3, seed=5, shuffle=False)
    out["getitem_1_x"], out["getitem_1_y"] = seq[1]
    out["getitem_2_x"], out["getitem_2_y"] = seq[2]
    out["getitem_out_of_range"] = _error(lambda: seq[3])["error"]
    only_x = image.ImageDataGenerator(brightness_range=(0.5, 1.5), dtype="float64").flow(
        x, batch_size=4, seed=3, shuffle=True
    )
    out["x_only"] = next(only_x)
    weighted = image.ImageDataGenerator(width_shift_range=3, cval=2.0, fill_mode="constant")
    bx, by, bw = next(weighted.flow(x, y, sample_weight=np.linspace(0, 1, 7), batch_size=4, seed=1))
    out["weighted_x"], out["weighted_y"], out["weighted_w"] = bx, by, bw
    cf = image.ImageDataGenerator(
        rotation_range=10, horizontal_flip=True, data_format="channels_first"
    )
    out["channels_first"] = next(cf.flow(x.transpose(0, 3, 1, 2), batch_size=7, seed=4))
    return out


def _random_transform_params(image):
    gen = image.ImageDataGenerator(
        rotation_range=30,
        width_shift_range=[-2, 0.5, 3],
        height_shift_range=0.25,
        shear_range=10,
        zoom_range=0.3,
        channel_shift_range=5.0,
        horizontal_flip=True,
        vertical_flip=True,
        brightness_range=[0.8, 1.2],
    )
    p = gen.get_random_transform((10, 12, 3), seed=42)
    out = {"param_" + k: np.asarray(v, dtype="float64") for k, v in sorted(p.items())}
    out["random_transform"] = gen.random_transform(_img((10, 12, 3)), seed=9)
    return out


def _standardize(image):
    x = _img((12, 4, 5, 3), seed=3)
    sample = _img((4, 5, 3), seed=4)
    out = {}
    gen = image.ImageDataGenerator(featurewise_center=True, featurewise_std_normalization=True)
    gen.fit(x)
    out["featurewise_mean"], out["featurewise_std"] = gen.mean, gen.std
    out["featurewise"] = gen.standardize(sample.copy())
    # More samples than features: a full-rank covariance, so the whitening matrix is unique
    # (a rank-deficient one depends on how LAPACK picks its null-space vectors).
    zca = image.ImageDataGenerator(zca_whitening=True, zca_epsilon=1e-2)
    zca.fit(_img((40, 3, 3, 3), seed=9))
    out["zca_mean"], out["zca_components"] = zca.mean, zca.principal_components
    out["zca"] = zca.standardize(_img((3, 3, 3), seed=10))
    samplewise = image.ImageDataGenerator(samplewise_std_normalization=True, rescale=0.5)
    out["samplewise"] = samplewise.standardize(sample.copy())
    aug = image.ImageDataGenerator(
        featurewise_center=True, rotation_range=15, data_format="channels_first"
    )
    aug.fit(x.transpose(0, 3, 1, 2), augment=True, rounds=2, seed=8)
    out["augmented_mean"] = aug.mean
    pre = image.ImageDataGenerator(preprocessing_function=lambda a: a**2, rescale=0.1)
    out["preprocessing_function"] = pre.standardize(sample.copy())
    return out


def _directory(image, workdir):
    root = os.path.join(workdir, "images")
    shutil.copytree(FILES_DIR, root)
    out = {}
    plain = image.ImageDataGenerator()
    variants = [
        ("rgb_categorical", dict(target_size=(6, 8))),
        (
            "grayscale_binary",
            dict(
                target_size=(5, 5),
                color_mode="grayscale",
                classes=["dogs", "cats"],
                class_mode="binary",
            ),
        ),
        (
            "rgba_sparse",
            dict(
                target_size=(7, 4), color_mode="rgba", class_mode="sparse", interpolation="bilinear"
            ),
        ),
        ("rgb_input", dict(target_size=(4, 4), class_mode="input", interpolation="bilinear")),
        ("rgb_none", dict(target_size=(9, 7), class_mode=None)),
    ]
    for name, kwargs in variants:
        it = plain.flow_from_directory(root, batch_size=4, shuffle=False, **kwargs)
        out[name + "_class_indices"] = sorted(it.class_indices.items())
        out[name + "_filenames"] = [f.replace(os.sep, "/") for f in it.filenames]
        out[name + "_classes"] = it.classes
        out[name + "_len"] = len(it)
        for i in range(len(it)):
            batch = it[i]
            if isinstance(batch, tuple):
                out[name + f"_batch_{i}_x"], out[name + f"_batch_{i}_y"] = batch
            else:
                out[name + f"_batch_{i}_x"] = batch
    aug = image.ImageDataGenerator(
        rotation_range=20, horizontal_flip=True, rescale=1.0 / 255, validation_split=0.4
    )
    for subset in ("training", "validation"):
        it = aug.flow_from_directory(root, target_size=(6, 6), batch_size=3, seed=17, subset=subset)
        out[f"split_{subset}_filenames"] = [f.replace(os.sep, "/") for f in it.filenames]
        bx, by = next(it)
        out[f"split_{subset}_x"], out[f"split_{subset}_y"] = bx, by
    channels_first = image.ImageDataGenerator(data_format="channels_first")
    it = channels_first.flow_from_directory(root, target_size=(3, 5), batch_size=12, shuffle=False)
    out["channels_first_x"], out["channels_first_y"] = it[0]
    return out


def _dataframe(image, workdir):
    """flow_from_dataframe (needs pandas; the recorder runs with pandas 1.3.5)."""
    import pandas as pd

    files = [
        "cats/c0.png",
        "dogs/d0.png",
        "cats/notes.txt",
        "zebras/z1.png",
        "cats/c1.jpg",
        "dogs/missing.png",
        "zebras/z0.png",
        "dogs/d2.jpg",
        "cats/c3.jpeg",
        "dogs/d1.png",
    ]
    labels = ["cat", "dog", "cat", "zebra", "cat", "dog", "zebra", "dog", "cat", "dog"]
    df = pd.DataFrame(
        {
            "filename": files,
            "class": labels,
            "tags": [[lbl, "animal"] if i % 3 else [lbl] for i, lbl in enumerate(labels)],
            "w": np.linspace(0.5, 2.0, 10),
            "score": np.arange(10, dtype="float64") / 4,
            "size": np.arange(10) % 3,
        }
    )
    gen = image.ImageDataGenerator(validation_split=0.25)
    out = {}
    variants = [
        ("categorical", dict(target_size=(5, 6), weight_col="w")),
        ("multilabel", dict(target_size=(4, 4), y_col="tags")),
        (
            "binary",
            dict(
                target_size=(4, 4),
                classes=["cat", "dog"],
                class_mode="binary",
                color_mode="grayscale",
            ),
        ),
        ("sparse", dict(target_size=(3, 5), class_mode="sparse", interpolation="bilinear")),
        ("raw", dict(target_size=(4, 4), y_col="score", class_mode="raw")),
        (
            "multi_output",
            dict(target_size=(4, 4), y_col=["score", "size"], class_mode="multi_output"),
        ),
        ("none", dict(target_size=(4, 4), class_mode=None, color_mode="rgba")),
        ("training", dict(target_size=(4, 4), subset="training")),
        ("validation", dict(target_size=(4, 4), subset="validation")),
    ]
    for name, kwargs in variants:
        it = gen.flow_from_dataframe(df, FILES_DIR, batch_size=4, shuffle=False, **kwargs)
        out[name + "_filenames"] = list(it.filenames)
        out[name + "_class_indices"] = sorted(getattr(it, "class_indices", {}).items())
        for i in range(len(it)):
            batch = it[i]
            out[f"{name}_batch_{i}"] = list(batch) if isinstance(batch, tuple) else batch
    rel = df.assign(filename=[os.path.join(FILES_DIR, f) for f in files])
    aug = image.ImageDataGenerator(rotation_range=30, horizontal_flip=True)
    it = aug.flow_from_dataframe(rel, target_size=(5, 5), batch_size=3, seed=21)
    out["seeded_0"], out["seeded_1"] = list(next(it)), list(next(it))
    it = gen.flow_from_dataframe(df, FILES_DIR, validate_filenames=False, class_mode=None)
    out["unvalidated_filenames"] = list(it.filenames)
    for name, kwargs in [
        ("binary_three_classes", dict(class_mode="binary")),
        ("multi_output_not_list", dict(class_mode="multi_output")),
        ("weight_not_numeric", dict(weight_col="class")),
        ("bad_class_mode", dict(class_mode="triplet")),
        ("sparse_list_labels", dict(y_col="tags", class_mode="sparse")),
    ]:
        out["error_" + name] = _error(
            lambda kw=kwargs: gen.flow_from_dataframe(df, FILES_DIR, **kw)
        )["error"]
    return out


def _round_trips(image, workdir):
    out = {}
    root = FILES_DIR
    for name, kwargs in [
        ("c1_rgb", dict(path="cats/c1.jpg")),
        ("c2_rgba", dict(path="cats/c2.png", color_mode="rgba")),
        ("c2_gray", dict(path="cats/c2.png", color_mode="grayscale")),
        ("d0_rgb_bilinear", dict(path="dogs/d0.png", target_size=(5, 3), interpolation="bilinear")),
        (
            "d0_gray_bicubic",
            dict(path="dogs/d0.png", grayscale=True, target_size=(4, 6), interpolation="bicubic"),
        ),
    ]:
        path = os.path.join(root, kwargs.pop("path"))
        img = image.load_img(path, **kwargs)
        out["load_" + name + "_mode"] = img.mode
        out["load_" + name + "_size"] = list(img.size)
        out["load_" + name] = image.img_to_array(img)
        out["load_" + name + "_first"] = image.img_to_array(img, data_format="channels_first")
    x = _img((5, 4, 3), seed=5)
    for name, arr, kwargs in [
        ("rgb_scaled", x, {}),
        ("rgb_unscaled", x, dict(scale=False)),
        ("gray", x[:, :, :1], {}),
        ("gray_wide", x[:, :, :1] * 10, dict(scale=False)),
        (
            "rgba_first",
            np.concatenate([x, x[:, :, :1]], 2).transpose(2, 0, 1),
            dict(data_format="channels_first"),
        ),
    ]:
        img = image.array_to_img(arr, **kwargs)
        out["to_img_" + name + "_mode"] = img.mode
        out["to_img_" + name] = image.img_to_array(img)
    for fmt in ("png", "jpg", "bmp"):
        path = os.path.join(workdir, "saved." + fmt)
        image.save_img(path, x)
        out["save_" + fmt] = image.img_to_array(image.load_img(path))
    path = os.path.join(workdir, "saved_rgba.jpeg")
    image.save_img(path, np.concatenate([x, x[:, :, :1]], 2), file_format="jpeg")
    out["save_rgba_as_jpeg"] = image.img_to_array(image.load_img(path))
    out["img_to_array_dtype"] = str(image.img_to_array(image.load_img(path), dtype="uint8").dtype)
    return out


def _validation_split(image):
    x = _img((10, 3, 3, 1), seed=6)
    y = np.array([0, 1, 0, 1, 0, 1, 0, 1, 0, 1])
    gen = image.ImageDataGenerator(validation_split=0.3)
    out = {}
    for subset in ("training", "validation"):
        it = gen.flow(x, y, batch_size=10, shuffle=False, subset=subset)
        out[subset + "_n"] = it.n
        out[subset + "_x"], out[subset + "_y"] = next(it)
    sorted_y = np.array([0] * 5 + [1] * 5)
    out["sorted_labels_error"] = _error(
        lambda: image.ImageDataGenerator(validation_split=0.5).flow(x, sorted_y, subset="training")
    )["error"]
    return out


def _errors(image, workdir):
    gen = image.ImageDataGenerator()
    cases = {
        "flow_rank3": lambda: gen.flow(np.zeros((4, 5, 3))),
        "flow_length_mismatch": lambda: gen.flow(np.zeros((4, 5, 5, 3)), np.zeros(3)),
        "fit_rank3": lambda: gen.fit(np.zeros((4, 5, 3))),
        "bad_data_format": lambda: image.ImageDataGenerator(data_format="channels_middle"),
        "bad_zoom_range": lambda: image.ImageDataGenerator(zoom_range=(0.1, 0.2, 0.3)),
        "bad_brightness_range": lambda: image.ImageDataGenerator(brightness_range=0.5),
        "bad_validation_split": lambda: image.ImageDataGenerator(validation_split=1.5),
        "bad_fill_mode": lambda: image.ImageDataGenerator(
            rotation_range=10, fill_mode="mirrorball"
        ).random_transform(np.zeros((4, 4, 3), "float32"), seed=1),
        "apply_bad_fill_mode": lambda: image.apply_affine_transform(
            np.zeros((4, 4, 3)), theta=5, fill_mode="mirrorball"
        ),
        "array_to_img_rank2": lambda: image.array_to_img(np.zeros((4, 4))),
        "array_to_img_5_channels": lambda: image.array_to_img(np.zeros((4, 4, 5))),
        "array_to_img_bad_format": lambda: image.array_to_img(np.zeros((4, 4, 3)), "nchw"),
        "img_to_array_bad_format": lambda: image.img_to_array(np.zeros((4, 4, 3)), "nchw"),
        "img_to_array_rank1": lambda: image.img_to_array(np.zeros(4)),
        "random_zoom_three": lambda: image.random_zoom(np.zeros((3, 4, 4)), (1, 2, 3)),
        "random_brightness_one": lambda: image.random_brightness(np.zeros((4, 4, 3)), (1,)),
        "missing_directory": lambda: gen.flow_from_directory(os.path.join(workdir, "absent")),
        "bad_color_mode": lambda: gen.flow_from_directory(FILES_DIR, color_mode="cmyk"),
        "bad_class_mode": lambda: gen.flow_from_directory(FILES_DIR, class_mode="other"),
        "bad_subset": lambda: gen.flow_from_directory(FILES_DIR, subset="test"),
        "bad_flow_subset": lambda: gen.flow(np.zeros((4, 5, 5, 3)), subset="test"),
        "bad_interpolation": lambda: gen.flow_from_directory(
            FILES_DIR, interpolation="cubic-ish", target_size=(3, 3)
        )[0],
        "load_bad_color_mode": lambda: image.load_img(
            os.path.join(FILES_DIR, "cats", "c0.png"), color_mode="cmyk"
        ),
        "load_missing_file": lambda: image.load_img(os.path.join(workdir, "absent.png")),
    }
    return {name: _error(fn)["error"] for name, fn in sorted(cases.items())}


CASES = {
    "affine": lambda image, workdir: _affine(image),
    "channel_and_brightness": lambda image, workdir: _channel_and_brightness(image),
    "random_functions": lambda image, workdir: _random_functions(image),
    "generator_flow": lambda image, workdir: _generator_flow(image),
    "random_transform_params": lambda image, workdir: _random_transform_params(image),
    "standardize": lambda image, workdir: _standardize(image),
    "directory": _directory,
    "dataframe": _dataframe,
    "round_trips": _round_trips,
    "validation_split": lambda image, workdir: _validation_split(image),
    "errors": _errors,
}
