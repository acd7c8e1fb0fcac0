function codes = equal_width(X, bins)
% The discretisation of the SFSF paper's experiments with the classical rough set ("five
% equal intervals", section 6.2), as fsengine.discretise.discretise(X, bins, "uniform") does
% it (our code): per column, cut points lo + (hi - lo) * (k / bins), k = 1..bins-1; the
% code of a value is the number of cut points strictly below it (0..bins-1).
  codes = zeros(size(X));
  for j = 1:size(X, 2)
    lo = min(X(:, j));
    hi = max(X(:, j));
    for k = 1:(bins - 1)
      codes(:, j) = codes(:, j) + (X(:, j) > lo + (hi - lo) * (k / bins));
    end
  end
end
