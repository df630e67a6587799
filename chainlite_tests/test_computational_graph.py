"""Tests of chainlite.computational_graph: structures checked against Chainer 7.8.1's dumps.

The expected node attributes and edges below were printed by Chainer 7.8.1 for the same
graphs; node ids differ between runs, so edges are compared by the labels at their ends.
"""
import re

import numpy as np
import pytest

import chainlite
import chainlite.functions as F
from chainlite import computational_graph as c

_VAR = 'shape="octagon",fillcolor="#E0E0E0",style="filled"'
_FUNC = 'shape="record",fillcolor="#6495ED",style="filled"'


def _canon(dot):
    labels = dict(re.findall(r'(\d+) \[label="([^"]*)"', dot))
    nodes = sorted(re.findall(r'\d+ \[([^\]]*)\];', dot))
    edges = sorted('%s -> %s' % (labels[a], labels[b])
                   for a, b in re.findall(r'(\d+) -> (\d+);', dot))
    return dot[:dot.index(';') + 1], nodes, edges


def _labels(nodes):
    return sorted(re.search(r'label="([^"]*)"', n).group(1) for n in nodes)


def _relu_mul_sum():
    x = chainlite.Variable(np.ones((2, 3), np.float32), name='x')
    return x, F.sum(F.relu(x) * x)


_MUL_EDGES = ['(2, 3), float32 -> Sum', '(2, 3), float32 -> _ * _', 'ReLU -> (2, 3), float32',
              'Sum -> float32', '_ * _ -> (2, 3), float32', 'x: (2, 3), float32 -> ReLU',
              'x: (2, 3), float32 -> _ * _']


def test_default_style_matches_chainer():
    _, y = _relu_mul_sum()
    g = c.build_computational_graph([y])
    assert (len(g.nodes), len(g.edges)) == (7, 7)
    head, nodes, edges = _canon(g.dump())
    assert head == 'digraph graphname{rankdir=TB;'
    assert nodes == sorted([
        'label="(2, 3), float32",' + _VAR, 'label="(2, 3), float32",' + _VAR,
        'label="ReLU",' + _FUNC, 'label="Sum",' + _FUNC, 'label="_ * _",' + _FUNC,
        'label="float32",' + _VAR, 'label="x: (2, 3), float32",' + _VAR])
    assert edges == _MUL_EDGES
    assert g.dump().endswith(';}')


def test_plain_style_no_names_and_rankdir():
    _, y = _relu_mul_sum()
    dot = c.build_computational_graph([y], variable_style=None, function_style=None,
                                      show_name=False, rankdir='LR').dump()
    head, nodes, edges = _canon(dot)
    assert head == 'digraph graphname{rankdir=LR;'
    assert nodes == sorted(['label="(2, 3), float32",shape="oval"'] * 3 + [
        'label="ReLU",shape="box"', 'label="Sum",shape="box"', 'label="_ * _",shape="box"',
        'label="float32",shape="oval"'])
    assert edges == ['(2, 3), float32 -> ReLU', '(2, 3), float32 -> Sum',
                     '(2, 3), float32 -> _ * _', '(2, 3), float32 -> _ * _',
                     'ReLU -> (2, 3), float32', 'Sum -> float32', '_ * _ -> (2, 3), float32']


def test_custom_styles_extend_the_shape_defaults():
    _, y = _relu_mul_sum()
    dot = c.build_computational_graph(y, variable_style={'color': 'red'},
                                      function_style={'shape': 'ellipse'}).dump()
    _, nodes, edges = _canon(dot)
    assert nodes == sorted(['label="(2, 3), float32",shape="oval",color="red"'] * 2 + [
        'label="ReLU",shape="ellipse"', 'label="Sum",shape="ellipse"',
        'label="_ * _",shape="ellipse"', 'label="float32",shape="oval",color="red"',
        'label="x: (2, 3), float32",shape="oval",color="red"'])
    assert edges == _MUL_EDGES


def test_remove_variable_links_functions():
    _, y = _relu_mul_sum()
    g = c.build_computational_graph([y], remove_variable=True)
    _, nodes, edges = _canon(g.dump())
    assert _labels(nodes) == ['ReLU', 'Sum', '_ * _']
    assert edges == ['ReLU -> _ * _', '_ * _ -> Sum']
    assert len(g.nodes) == 7  # variables stay in the graph, only the drawing leaves them out

    w = chainlite.Variable(np.ones(3, np.float32))
    s = w + w
    _, nodes, edges = _canon(c.build_computational_graph(
        F.sum(s * s), remove_variable=True).dump())
    # s feeds `_ * _` twice, drawn once
    assert (_labels(nodes), edges) == (['Sum', '_ * _', '_ + _'],
                                       ['_ * _ -> Sum', '_ + _ -> _ * _'])


def test_dead_output_of_a_multi_output_function():
    x = chainlite.Variable(np.ones((2, 3), np.float32), name='x')
    a, b = F.split_axis(x, 2, 0)
    del b  # its node dies; the function keeps a dead weak reference
    z = F.sigmoid(a)
    _, nodes, edges = _canon(c.build_computational_graph([z]).dump())
    assert _labels(nodes) == ['(1, 3), float32', '(1, 3), float32', 'Sigmoid', 'SplitAxis',
                              'x: (2, 3), float32']
    assert edges == ['(1, 3), float32 -> Sigmoid', 'Sigmoid -> (1, 3), float32',
                     'SplitAxis -> (1, 3), float32', 'x: (2, 3), float32 -> SplitAxis']


def test_only_backward_reachable_nodes():
    w = chainlite.Variable(np.ones(3, np.float32))
    p, q = F.exp(w), F.log(w)
    _, nodes, edges = _canon(c.build_computational_graph([p, q]).dump())
    assert _labels(nodes) == ['(3), float32'] * 3 + ['exp', 'log']
    assert edges == ['(3), float32 -> exp', '(3), float32 -> log', 'exp -> (3), float32',
                     'log -> (3), float32']
    _, nodes, edges = _canon(c.build_computational_graph([p]).dump())
    assert _labels(nodes) == ['(3), float32', '(3), float32', 'exp']
    assert edges == ['(3), float32 -> exp', 'exp -> (3), float32']


def test_function_node_variable_node_and_leaf_outputs():
    w = chainlite.Variable(np.ones(3, np.float32))
    p, q = F.exp(w), F.log(w)
    _, nodes, edges = _canon(c.build_computational_graph([p.creator_node]).dump())
    assert (_labels(nodes), edges) == (['(3), float32', 'exp'], ['(3), float32 -> exp'])
    _, nodes, edges = _canon(c.build_computational_graph([q.node]).dump())
    assert _labels(nodes) == ['(3), float32', '(3), float32', 'log']
    g = c.build_computational_graph([w])
    assert (len(g.nodes), g.edges) == (1, [])
    assert _canon(g.dump())[2] == []


def test_stops_at_unchained_variables():
    w = chainlite.Variable(np.ones(3, np.float32))
    u = F.sigmoid(F.exp(w))
    u2 = u * 2.5
    u.unchain_backward()
    _, nodes, edges = _canon(c.build_computational_graph([u2]).dump())
    assert _labels(nodes) == ['(3), float32', '(3), float32', '_ * 2.5']
    assert edges == ['(3), float32 -> _ * 2.5', '_ * 2.5 -> (3), float32']


def test_deep_graph_without_recursion():
    x = chainlite.Variable(np.ones(1, np.float32))
    h = x
    for _ in range(3000):
        h = F.identity(h)
    g = c.build_computational_graph(h)
    assert (len(g.nodes), len(g.edges)) == (6001, 6000)
    assert g.dump().count('->') == 6000


def test_order_is_deterministic_from_outputs_back():
    x, y = _relu_mul_sum()
    g = c.build_computational_graph(y)
    assert g.nodes[0] is y.node and g.nodes[1] is y.creator_node
    assert len(set(map(id, g.nodes))) == 7
    assert any(n is x.node for n in g.nodes)
    assert g.dump() == c.build_computational_graph(y).dump()


def test_dot_node_labels():
    v = chainlite.Variable(np.zeros((), np.float64), name='say "hi"')
    assert c.DotNode(v.node).label == '%d [label="say \\"hi\\": float64",shape="oval"];' % id(
        v.node)
    assert c.DotNode(v.node, show_name=False).attribute == {'label': 'float64', 'shape': 'oval'}
    assert c.DotNode(chainlite.Variable().node).attribute['label'] == 'None'
    f = F.exp(v).creator_node
    assert c.DotNode(f, {'color': 'blue'}).attribute == {'label': 'exp', 'shape': 'box',
                                                         'color': 'blue'}
    with pytest.raises(TypeError, match='DotNode'):
        c.DotNode(v)


def test_errors():
    _, y = _relu_mul_sum()
    with pytest.raises(ValueError, match='remove_split'):
        c.build_computational_graph(y, remove_split=False)
    with pytest.raises(TypeError, match='Variable, VariableNode or FunctionNode'):
        c.build_computational_graph([y, np.ones(2)])
    with pytest.raises(ValueError, match='rankdir'):
        c.build_computational_graph(y, rankdir='XY')
    with pytest.raises(ValueError, match='style'):
        c.build_computational_graph(y, variable_style='fancy')
    g = c.build_computational_graph(y)
    with pytest.raises(NotImplementedError, match='dot'):
        g.dump('json')
    bad = c.ComputationalGraph([y.node], [(y.node, y.node)])
    with pytest.raises(TypeError, match='VariableNode and a FunctionNode'):
        bad.dump()
