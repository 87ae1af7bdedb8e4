"""The floor for pure Python: micrograd's demo step written out by hand on plain floats.

No engine that builds a graph of Python objects, one per scalar, can beat a program that does
the same arithmetic without the graph, so this is the yardstick for "how close to plain Python
is an engine". The model is a list of layers; a layer is a list of neurons; a neuron is a list
of floats, its weights followed by its bias (the order in which the engines list parameters).

What it does, like the graph engines: for every point, the forward pass through every neuron
(bias first, then each weight times its input, in the order the graph adds them), the hinge
loss, the accuracy count; the backward pass through every neuron of every layer; then the L2
penalty, its gradient and the SGD update of every parameter. It does not skip zeros: points
whose hinge loss is 0 and units whose ReLU is off send their zero gradients through every
multiply-add, as the graph's backward pass does.

What it skips, because that is what the graph costs: an object per scalar, wrapping the
inputs, sorting the graph, resetting intermediate gradients, a method call per operation.
It also skips one piece of arithmetic the graph engines do and nobody reads: the gradient with
respect to the input points (2 x 16 multiply-adds per point, under 4% of the step's arithmetic),
so the floor is, if anything, a little lower than the graph's true arithmetic cost.
"""


def floor_step(model, X, Y, lr, alpha):
    """One SGD step on `model`, in place; returns (loss, accuracy) before the update.

    loss = mean_i max(0, 1 - y_i * score_i) + alpha * sum_p p^2, so
    d(loss)/d(score_i) = -y_i / n where the hinge is active (0 elsewhere), and the L2 term adds
    2 * alpha * p to each parameter's gradient.
    """
    n = len(X)
    last = len(model) - 1
    grads = [[[0.0] * len(neuron) for neuron in layer] for layer in model]
    data_loss = 0.0
    correct = 0
    for x, y in zip(X, Y):
        # Forward, keeping what each layer was given: the backward pass needs it.
        seen = []
        h = x
        for i, layer in enumerate(model):
            seen.append(h)
            out = []
            for neuron in layer:
                s = neuron[-1]
                for w, v in zip(neuron, h):  # zip stops at the inputs, before the bias
                    s += w * v
                out.append(s if i == last or s > 0 else 0.0)
            h = out
        score = h[0]
        margin = 1.0 + -y * score
        data_loss += margin if margin > 0 else 0.0
        correct += (y > 0) == (score > 0)

        # Backward: d(loss)/d(each neuron's output), layer by layer from the top.
        d_out = [-y * ((1.0 / n) if margin > 0 else 0.0)]
        for i in range(last, -1, -1):
            h = seen[i]
            if i == 0:  # the inputs are data: only the weights need gradients
                for g, d in zip(grads[0], d_out):
                    for k, v in enumerate(h):
                        g[k] += d * v
                    g[-1] += d
                break
            d_in = [0.0] * len(h)
            for neuron, g, d in zip(model[i], grads[i], d_out):
                for k, v in enumerate(h):
                    g[k] += d * v
                    d_in[k] += d * neuron[k]
                g[-1] += d
            # through the ReLU that made h: gradient passes only where it was on
            d_out = [d if v > 0 else 0.0 for d, v in zip(d_in, h)]

    reg = 0.0
    for layer in model:
        for neuron in layer:
            for p in neuron:
                reg += p * p
    loss = data_loss * (1.0 / n) + alpha * reg
    for layer, g_layer in zip(model, grads):
        for neuron, g in zip(layer, g_layer):
            for k, p in enumerate(neuron):
                neuron[k] = p - lr * (g[k] + 2.0 * alpha * p)
    return loss, correct / n
