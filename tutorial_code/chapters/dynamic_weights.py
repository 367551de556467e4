"""Chapter: dynamic weights. Run: python -m tutorial_code.chapters.dynamic_weights"""

# --8<-- [start:setup]
import torch

from tutorial_code.sum_task import predict_sum, trained_sum_model

torch.set_printoptions(precision=2, sci_mode=False)
# --8<-- [end:setup]

# --8<-- [start:two_inputs]
model = trained_sum_model(seed=0, steps=500).model.eval()  # trained once per build, reused
nines = [9.0] * 8
ramp = [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]
with torch.no_grad():
    _, weights_nines = model(torch.tensor([nines]))
    _, weights_ramp = model(torch.tensor([ramp]))
head0_nines = weights_nines[0][0, 0]  # layer 0, sequence 0, head 0: (T, T)
head0_ramp = weights_ramp[0][0, 0]
print("layer 0, head 0, input 9 9 9 9 9 9 9 9:")
print(head0_nines)
print("layer 0, head 0, input 0 1 2 3 4 5 6 7:")
print(head0_ramp)
print(f"largest change of one weight between the two inputs: {(head0_nines - head0_ramp).abs().max():.2f}")
print(f"predicted sums: {predict_sum(model, nines):.1f} (true 72), {predict_sum(model, ramp):.1f} (true 28)")
# --8<-- [end:two_inputs]
