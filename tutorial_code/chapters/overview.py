"""Home page: the result the reader builds towards. Run: python -m tutorial_code.chapters.overview"""

# --8<-- [start:setup]
from tutorial_code.sum_task import predict_sum, trained_sum_model

# --8<-- [end:setup]

# --8<-- [start:summary]
result = trained_sum_model(seed=0, steps=500)
numbers = [3, 1, 4, 1, 5, 9, 2, 6]
print(
    f"On the machine that built this page, {len(result.losses)} training steps took "
    f"{result.seconds:.1f} s. The loss fell from {result.losses[0]:.1f} at the first step to "
    f"{result.eval_loss:.4f} on held-out sequences, and for {numbers} (sum {sum(numbers)}) "
    f"the trained model answers {predict_sum(result.model, numbers):.2f}."
)
# --8<-- [end:summary]
