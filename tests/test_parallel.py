"""The public functions are pure and picklable: a sweep mapped over worker processes (as Dask,
Ray or multiprocessing would) gives the same results as in this process."""

from __future__ import annotations

import multiprocessing
import pickle
from concurrent.futures import ProcessPoolExecutor
from functools import partial

import momentcalc

STDS = ("0.01", "0.02", "0.5", "3")


def _texts(result):
    return {q.name: q.decimal(result.digits) for q in result.results}


def test_a_sweep_through_a_process_pool_matches():
    truncnorm = partial(momentcalc.truncnorm, low=-3, high=2, digits=25)
    moment = partial(momentcalc.activation_moment, "gelu", digits=20)
    here = [truncnorm(std=s) for s in STDS] + [moment(std=s) for s in STDS]
    # spawn: fresh interpreters that import momentcalc themselves and get the functions and
    # results by pickling, as a cluster's workers would (no state shared through a fork)
    # (one worker: the suite already runs a process per core; it takes every call in turn, so
    # a call that left state behind would change the next one's result)
    with ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn")) as pool:
        there = [*pool.map(partial(_call, truncnorm), STDS), *pool.map(partial(_call, moment), STDS)]
    assert [_texts(r) for r in there] == [_texts(r) for r in here]
    assert [r.inputs for r in there] == [r.inputs for r in here]


def _call(function, std):
    return function(std=std)


def test_results_pickle_whole():
    for result in (momentcalc.postnorm_decay(layers=6), momentcalc.init(fan_in=512), momentcalc.attention()):
        again = pickle.loads(pickle.dumps(result))
        assert _texts(again) == _texts(result)
        assert [q.name for q in again.results] == [q.name for q in result.results]
