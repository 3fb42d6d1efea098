"""AdamW for a model held in low precision: the step is taken on float32 master copies of its weights.

On a GPU the trainer holds the agent in bfloat16 (``model.dtype: auto``). bfloat16 keeps 8 significant
bits, so an AdamW step of ``lr`` (about ``lr`` per weight) on a weight ``w`` is lost to rounding wherever
``|w| > 256 lr``: one step at ``lr = 1e-5`` on SmolLM2-135M in bfloat16 changed 1.9% of its weights, and
30 steps took its loss on one batch from 3.33 to 3.03 where the masters reach 0.76 and float32 0.32
(``benchmarks/bf16_update_loss.py``). ``MasterWeightAdamW`` keeps a float32 copy of each
low-precision weight, applies AdamW to the copy (the gradient cast to float32) and writes the copy back
rounded, so small steps accumulate in the copy until they show in the model. float32 weights are stepped
in place: for a float32 model it is AdamW itself, step for step.

A weight changed outside this optimizer (another optimizer's step, ``load_state_dict``) no longer equals
its copy rounded; the next step takes the model's value for it. The copies are part of ``state_dict``, so
a resumed run continues with the same float32 weights.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import torch

MASTER_KEY = "master_weights"


class MasterWeightAdamW(torch.optim.AdamW):
    """``torch.optim.AdamW`` over float32 masters of ``params`` (see the module docstring).

    Gradient clipping and ``zero_grad`` act on the model's own parameters, as with AdamW; ``param_groups``
    (the learning rate) are AdamW's.
    """

    def __init__(self, params: Iterable[torch.nn.Parameter], lr: float, weight_decay: float = 0.01) -> None:
        self.model_params = [p for p in params if p.requires_grad]
        self.low_precision = [i for i, p in enumerate(self.model_params) if p.dtype != torch.float32]
        masters = list(self.model_params)
        for i in self.low_precision:
            masters[i] = self.model_params[i].detach().float()
        super().__init__(masters, lr=lr, weight_decay=weight_decay)

    def _masters(self) -> list[torch.Tensor]:
        return self.param_groups[0]["params"]

    @torch.no_grad()
    def step(self, closure: Any = None) -> Any:
        if closure is not None:
            raise ValueError("MasterWeightAdamW.step takes no closure")
        masters = self._masters()
        for i in self.low_precision:
            param, master = self.model_params[i], masters[i]
            # elementwise, without a host sync: where the model no longer holds the master rounded, take its
            master.copy_(torch.where(master.to(param.dtype) == param, master, param.float()))
            master.grad = None if param.grad is None else param.grad.float()
        loss = super().step()
        for i in self.low_precision:
            self.model_params[i].copy_(masters[i])
            masters[i].grad = None
        return loss

    def zero_grad(self, set_to_none: bool = True) -> None:
        super().zero_grad(set_to_none=set_to_none)
        for i in self.low_precision:
            param = self.model_params[i]
            if set_to_none:
                param.grad = None
            elif param.grad is not None:
                param.grad.zero_()

    def state_dict(self) -> dict[str, Any]:
        state = super().state_dict()
        if self.low_precision:
            masters = self._masters()
            state[MASTER_KEY] = [masters[i].detach().clone() for i in self.low_precision]
        return state

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        state_dict = dict(state_dict)
        saved = state_dict.pop(MASTER_KEY, None)
        super().load_state_dict(state_dict)
        if saved is None:
            return
        if len(saved) != len(self.low_precision):
            raise ValueError(
                f"the checkpoint holds {len(saved)} float32 master weights, this model "
                f"{len(self.low_precision)} low-precision weights: it was saved for a model of another dtype "
                "or shape"
            )
        masters = self._masters()
        with torch.no_grad():
            for i, tensor in zip(self.low_precision, saved, strict=True):
                masters[i].copy_(tensor)
