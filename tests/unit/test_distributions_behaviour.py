"""tf.distributions in use: training through log_prob and through reparameterised samples,
a session that keeps working after a validate_args failure, KL lookup along class
hierarchies, seeded sampling that replays, and Gamma's implicit sample gradient."""

from __future__ import annotations

import numpy as np
import pytest
import tfcluster as tf

D = tf.distributions


def test_fitting_a_normal_by_maximum_likelihood_finds_the_data_moments() -> None:
    data = np.random.default_rng(0).normal(2.0, 0.5, size=400).astype(np.float32)
    with tf.Graph().as_default():
        mu = tf.Variable(0.0)
        log_sigma = tf.Variable(0.0)
        dist = D.Normal(mu, tf.exp(log_sigma))
        loss = -tf.reduce_mean(dist.log_prob(data))
        train = tf.train.AdamOptimizer(0.05).minimize(loss)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(400):
                sess.run(train)
            m, s = sess.run([mu, tf.exp(log_sigma)])
    assert m == pytest.approx(float(data.mean()), abs=0.02)
    assert s == pytest.approx(float(data.std()), abs=0.02)


def test_reparameterised_samples_carry_gradients_to_the_parameters() -> None:
    # Minimising E[(x - 3)^2] over x ~ Normal(mu, sigma) drives mu to 3 and sigma towards 0
    # (from softplus(1) = 1.31).
    with tf.Graph().as_default():
        mu = tf.Variable(0.0)
        raw_sigma = tf.Variable(1.0)
        dist = D.Normal(mu, tf.nn.softplus(raw_sigma))
        loss = tf.reduce_mean(tf.square(dist.sample(256, seed=3) - 3.0))
        train = tf.train.GradientDescentOptimizer(0.05).minimize(loss)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(300):
                sess.run(train)
            m, s = sess.run([mu, dist.scale])
    assert m == pytest.approx(3.0, abs=0.05)
    assert s < 0.3


def test_gamma_sample_gradient_matches_the_mean_derivative() -> None:
    # E[x] = concentration / rate: d/d concentration = 1 / rate (implicit reparameterisation).
    with tf.Graph().as_default():
        conc = tf.constant([0.3, 1.0, 4.0])
        rate = tf.constant(2.0)
        x = D.Gamma(conc, rate).sample(40000, seed=5)
        grad = tf.gradients(tf.reduce_mean(x, 0), conc)[0]
        with tf.Session() as sess:
            g = sess.run(grad)
    np.testing.assert_allclose(g, [0.5, 0.5, 0.5], rtol=0.05)


def test_a_session_keeps_working_after_a_validate_args_failure() -> None:
    with tf.Graph().as_default():
        scale = tf.placeholder(tf.float32, [])
        dist = D.Normal(0.0, scale, validate_args=True)
        lp = dist.log_prob(1.0)
        with tf.Session() as sess:
            with pytest.raises(tf.errors.InvalidArgumentError):
                sess.run(lp, {scale: -1.0})
            assert sess.run(lp, {scale: 1.0}) == pytest.approx(-0.5 - 0.5 * np.log(2 * np.pi))


def test_seeded_samples_replay_in_a_new_session_and_differ_between_runs() -> None:
    with tf.Graph().as_default():
        tf.set_random_seed(7)
        s = D.Categorical(logits=[0.0, 1.0, 2.0]).sample(50, seed=2)
        with tf.Session() as sess:
            first, second = sess.run(s), sess.run(s)
        with tf.Session() as sess:
            again = sess.run(s)
    np.testing.assert_array_equal(first, again)
    assert not np.array_equal(first, second)


def test_kl_lookup_prefers_the_nearest_registered_ancestors() -> None:
    class Base(D.Normal):
        pass

    class Child(Base):
        pass

    @D.RegisterKL(Base, D.Normal)
    def _kl_base(a: D.Distribution, b: D.Distribution, name: str | None = None) -> tf.Tensor:
        return tf.constant(1.0)

    @D.RegisterKL(Child, D.Normal)
    def _kl_child(a: D.Distribution, b: D.Distribution, name: str | None = None) -> tf.Tensor:
        return tf.constant(2.0)

    with tf.Graph().as_default(), tf.Session() as sess:
        plain = D.Normal(0.0, 1.0)
        got = sess.run(
            [
                D.kl_divergence(Child(0.0, 1.0), plain),
                D.kl_divergence(Base(0.0, 1.0), plain),
                D.kl_divergence(plain, Child(1.0, 1.0)),  # falls back on Normal || Normal
            ]
        )
    assert got[:2] == [2.0, 1.0]
    assert got[2] == pytest.approx(0.5)
    with pytest.raises(ValueError, match="already been registered"):
        D.RegisterKL(Child, D.Normal)(_kl_child)
    with pytest.raises(TypeError, match="callable"):
        D.RegisterKL(Base, Base)(3)  # type: ignore[arg-type]


def test_multinomial_samples_count_total_count_draws_per_member() -> None:
    with tf.Graph().as_default():
        dist = D.Multinomial(total_count=[2.0, 7.0], probs=[[0.5, 0.5, 0.0], [0.1, 0.2, 0.7]])
        s = dist.sample(30, seed=4)
        with tf.Session() as sess:
            counts = sess.run(s)
    assert counts.shape == (30, 2, 3)
    np.testing.assert_array_equal(counts.sum(-1), np.tile([2.0, 7.0], (30, 1)))
    assert (counts[:, 0, 2] == 0).all()
