"""T5's relative position bias (Raffel et al., 2019): no position vectors; each
head adds to its scores a learned number, one per bucket of query-key offset."""

# --8<-- [start:imports]
import math

import torch
from torch import nn

from tutorial_code.validation import check_counts, check_flags

# --8<-- [end:imports]


# --8<-- [start:relative_position_bucket]
def relative_position_bucket(
    offset: torch.Tensor,
    bidirectional: bool = True,
    num_buckets: int = 32,
    max_distance: int = 128,
) -> torch.Tensor:
    """The bucket of each offset (key position - query position), as T5 sorts.

    Half of a direction's buckets hold one distance each (0, 1, 2, ...); the
    other half grow logarithmically up to `max_distance`, and every longer
    distance shares the last. Bidirectional (an encoder): keys after the
    query get buckets of their own. Causal (a decoder): only keys before it.

    Examples:
        >>> relative_position_bucket(torch.tensor([-3, 0, 3]))
        tensor([ 3,  0, 19])
    """
    check_counts(num_buckets=num_buckets, max_distance=max_distance)
    bucket = torch.zeros_like(offset)
    if bidirectional:
        num_buckets //= 2  # half for keys before the query, half after
        bucket = bucket + (offset > 0).long() * num_buckets
        distance = offset.abs()
    else:
        distance = (-offset).clamp(min=0)  # keys after the query: bucket 0
    exact = num_buckets // 2  # distances below this get a bucket each
    logarithmic = (
        exact
        + (
            torch.log(distance.float().clamp(min=1) / exact)
            / math.log(max_distance / exact)
            * (num_buckets - exact)
        ).long()
    )
    logarithmic = logarithmic.clamp(max=num_buckets - 1)
    return bucket + torch.where(distance < exact, distance, logarithmic)


# --8<-- [end:relative_position_bucket]


# --8<-- [start:relative_position_bias]
class RelativePositionBias(nn.Module):
    """The float mask (h, T_q, T_k) that T5 adds to every layer's scores.

    Examples:
        >>> bias = RelativePositionBias(num_heads=4)
        >>> bias(3, 5).shape
        torch.Size([4, 3, 5])
    """

    def __init__(
        self,
        num_heads: int,
        bidirectional: bool = True,
        num_buckets: int = 32,
        max_distance: int = 128,
    ) -> None:
        super().__init__()
        check_counts(
            num_heads=num_heads,
            num_buckets=num_buckets,
            max_distance=max_distance,
        )
        check_flags(bidirectional=bidirectional)
        check_counts(num_heads=num_heads)
        self.bidirectional = bidirectional
        self.num_buckets, self.max_distance = num_buckets, max_distance
        # one learned number per bucket and head
        self.embedding = nn.Embedding(num_buckets, num_heads)

    def forward(self, query_length: int, key_length: int) -> torch.Tensor:
        check_counts(query_length=query_length, key_length=key_length)
        device = self.embedding.weight.device
        queries = torch.arange(query_length, device=device)[:, None]
        keys = torch.arange(key_length, device=device)[None, :]
        buckets = relative_position_bucket(
            keys - queries,  # (T_q, T_k): the offset of each key
            self.bidirectional,
            self.num_buckets,
            self.max_distance,
        )
        return self.embedding(buckets).permute(2, 0, 1)  # (h, T_q, T_k)


# --8<-- [end:relative_position_bias]
