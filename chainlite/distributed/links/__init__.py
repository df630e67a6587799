"""Links for distributed training: multi-node batch normalization and model parallelism."""
from chainlite.distributed.links.batch_normalization import MultiNodeBatchNormalization  # noqa: F401,E501
from chainlite.distributed.links.create_mnbn_model import create_mnbn_model  # noqa: F401
from chainlite.distributed.links.multi_node_chain_list import MultiNodeChainList  # noqa: F401
from chainlite.distributed.links.n_step_rnn import MultiNodeNStepRNN  # noqa: F401
from chainlite.distributed.links.n_step_rnn import create_multi_node_n_step_rnn  # noqa: F401
