"""Graph optimizations: static subgraphs recorded once and replayed (``static_graph``)."""
from chainlite.graph_optimizations import static_graph  # noqa: F401
from chainlite.graph_optimizations import static_graph_utilities  # noqa: F401
from chainlite.graph_optimizations.static_graph_utilities import static_code  # noqa: F401
